"""Move ordering and Greenblatt-style plausibility, shared by every search mode.

Captures are ordered by expected gain, quiet moves by a plausibility score after Greenblatt 1967
(Greenblatt et al. 1967, "The plausible move generator"): the change in "developmental
value" (the importance of the squares the piece bears on, before and after the move; square
importance from closeness to the centre and to the enemy king), material captured, saving a piece
that is en prise, not putting the moved piece en prise, developing minor pieces, castling, not
blocking centre pawns on their original squares, and (optionally) giving check. The MCTS mode
turns the same scores into priors.
"""

from __future__ import annotations

import chess

from engine.attack_tables import (
    DIAG_ATTACKS,
    DIAG_MASKS,
    FILE_ATTACKS,
    FILE_MASKS,
    KING_ATTACKS,
    KNIGHT_ATTACKS,
    LINES,
    PAWN_ATTACKS,
    RANK_ATTACKS,
    RANK_MASKS,
    SQUARES,
)
from engine.eval_terms.bits import popcount
from engine.evaluate import PIECE_VALUES

VALUE = [0, *(int(PIECE_VALUES[t]) for t in range(chess.PAWN, chess.KING)), 20000]
"""Exchange values by piece type: the evaluation's middlegame material as built in, a king 20000."""

CENTER4 = chess.BB_D4 | chess.BB_E4 | chess.BB_D5 | chess.BB_E5
CENTER16 = (chess.BB_FILE_C | chess.BB_FILE_D | chess.BB_FILE_E | chess.BB_FILE_F) & (
    chess.BB_RANK_3 | chess.BB_RANK_4 | chess.BB_RANK_5 | chess.BB_RANK_6
)
CENTRALITY = [
    6 - max(abs(2 * chess.square_file(sq) - 7), abs(2 * chess.square_rank(sq) - 7)) // 2 * 2
    for sq in chess.SQUARES
]
"""Per-square closeness to the centre (0 on the rim, 6 in the centre): the cheap ordering term."""

BACK_RANK = (chess.BB_RANK_8, chess.BB_RANK_1)
CENTER_PAWN_HOMES = ((chess.D7, chess.E7), (chess.D2, chess.E2))

CHECK_BONUS = 60
CASTLE_BONUS = 60
DEVELOP_BONUS = 25
KING_WALK_PENALTY = 40
BLOCK_CENTER_PENALTY = 30


def capture_gain(board: chess.Board, move: chess.Move) -> int:
    """Expected material gain of a capture or promotion, in centipawns (may be negative).

    The victim's value, plus the promotion's, less the capturing piece's value when the capture is
    of a cheaper piece on a defended square (it is then expected to be recaptured); captures of
    equal or dearer pieces are ranked most valuable victim, least valuable attacker first.
    """
    victim = board.piece_type_at(move.to_square)
    attacker = board.piece_type_at(move.from_square)
    value = VALUE[victim] if victim else (VALUE[chess.PAWN] if board.is_en_passant(move) else 0)
    if move.promotion:
        value += VALUE[move.promotion] - VALUE[chess.PAWN]
    cost = VALUE[attacker]
    if value >= cost:
        return value - cost // 10
    if board.is_attacked_by(not board.turn, move.to_square):
        return value - cost
    return value


def static_exchange(board: chess.Board, move: chess.Move) -> int:
    """Static exchange evaluation of a capture (or promotion), in centipawns for the mover: both
    sides recapture on the target square with their least valuable attacker, x-rays included,
    each free to stop when going on would lose (CPW "SEE - The Swap Algorithm"). Pins are
    ignored; a king recaptures only onto an undefended square.

    The attackers of both sides are found once; after each capture only the sliders are looked
    for again, through the emptier board (the x-rays), as python-chess's `attackers_mask` would
    find them all."""
    to_sq = move.to_square
    from_bb = SQUARES[move.from_square]
    pawns, knights, bishops = board.pawns, board.knights, board.bishops
    rooks, queens, kings = board.rooks, board.queens, board.kings
    by_value = (pawns, knights, bishops, rooks, queens, kings)
    attacker = chess.PAWN
    while not by_value[attacker - 1] & from_bb:
        attacker += 1
    to_bb = SQUARES[to_sq]
    victim = chess.PAWN
    while victim <= chess.KING and not by_value[victim - 1] & to_bb:
        victim += 1
    occupied = board.occupied ^ from_bb
    if victim > chess.KING:
        victim = 0
        if attacker == chess.PAWN and to_sq == board.ep_square:
            victim = chess.PAWN
            occupied ^= SQUARES[to_sq ^ 8]
    gains = [VALUE[victim]]
    if move.promotion:
        gains[0] += VALUE[move.promotion] - VALUE[chess.PAWN]
        attacker = move.promotion
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    colours = (black, white)
    steppers = (
        KING_ATTACKS[to_sq] & kings | KNIGHT_ATTACKS[to_sq] & knights
        | PAWN_ATTACKS[chess.BLACK][to_sq] & pawns & white
        | PAWN_ATTACKS[chess.WHITE][to_sq] & pawns & black
    )
    diagonal = bishops | queens
    straight = rooks | queens
    diagonal_mask, rank_mask, file_mask = DIAG_MASKS[to_sq], RANK_MASKS[to_sq], FILE_MASKS[to_sq]
    diagonal_attacks, rank_attacks, file_attacks = (
        DIAG_ATTACKS[to_sq], RANK_ATTACKS[to_sq], FILE_ATTACKS[to_sq])
    side = not board.turn
    while True:
        gains.append(VALUE[attacker] - gains[-1])  # if `side` can take the last capturer
        if max(-gains[-2], gains[-1]) < 0:
            break  # taking or not, the outcome's sign is settled
        both = (
            steppers
            | diagonal_attacks[diagonal_mask & occupied] & diagonal
            | (rank_attacks[rank_mask & occupied] | file_attacks[file_mask & occupied]) & straight
        ) & occupied
        attackers = both & colours[side]
        if not attackers:
            break
        piece_type = chess.PAWN
        found = attackers & pawns
        while not found:
            piece_type += 1
            found = attackers & by_value[piece_type - 1]
        if piece_type == chess.KING and both & colours[not side]:
            break
        occupied ^= found & -found
        attacker = piece_type
        side = not side
    for depth in range(len(gains) - 2, 0, -1):  # the last entry is a capture not made
        gains[depth - 1] = -max(-gains[depth - 1], gains[depth])
    return gains[0]


def exchange_gain(board: chess.Board, move: chess.Move) -> int:
    """`capture_gain`, with the static exchange where that guess is a loss (a cheaper piece
    taken on a defended square): the ordering key of captures, exact where it decides whether a
    capture loses material."""
    gain = capture_gain(board, move)
    return gain if gain >= 0 else static_exchange(board, move)


def by_key(item: tuple[int, chess.Move]) -> int:
    """Sort key of a (score, move) pair."""
    return item[0]


def attacks_from(piece_type: int, color: bool, square: int, occupied: int) -> int:
    """Squares a piece of `piece_type` on `square` bears on with the given occupancy."""
    if piece_type == chess.PAWN:
        return PAWN_ATTACKS[color][square]
    if piece_type == chess.KNIGHT:
        return KNIGHT_ATTACKS[square]
    if piece_type == chess.KING:
        return KING_ATTACKS[square]
    attacks = 0
    if piece_type != chess.ROOK:
        attacks |= DIAG_ATTACKS[square][DIAG_MASKS[square] & occupied]
    if piece_type != chess.BISHOP:
        attacks |= (
            RANK_ATTACKS[square][RANK_MASKS[square] & occupied]
            | FILE_ATTACKS[square][FILE_MASKS[square] & occupied]
        )
    return attacks


def gives_check(board: chess.Board, move: chess.Move) -> bool:
    """`board.gives_check(move)` without making the move, for a pseudo-legal move: a direct
    check by the moved (or promoted) piece, or a discovered check by a slider behind it, looked
    for only when the move leaves a line through the king; castling and en passant, rare and
    awkward, are left to python-chess."""
    us = board.turn
    king_bb = board.kings & board.occupied_co[not us] & ~board.promoted  # as `board.king`
    if not king_bb:
        return False
    king = king_bb.bit_length() - 1
    from_sq, to_sq = move.from_square, move.to_square
    from_bb = SQUARES[from_sq]
    if board.pawns & from_bb:
        if to_sq == board.ep_square:
            return board.gives_check(move)
        piece = chess.PAWN
    elif board.knights & from_bb:
        piece = chess.KNIGHT
    elif board.bishops & from_bb:
        piece = chess.BISHOP
    elif board.rooks & from_bb:
        piece = chess.ROOK
    elif board.queens & from_bb:
        piece = chess.QUEEN
    else:
        if board.is_castling(move):
            return board.gives_check(move)
        piece = chess.KING
    occupied = (board.occupied & ~from_bb) | SQUARES[to_sq]
    if attacks_from(move.promotion or piece, us, to_sq, occupied) & king_bb:
        return True
    if not LINES[king] & from_bb:
        return False
    ours = board.occupied_co[us] & ~from_bb
    diagonal = DIAG_ATTACKS[king][DIAG_MASKS[king] & occupied]
    if diagonal & (board.bishops | board.queens) & ours:
        return True
    straight = (
        RANK_ATTACKS[king][RANK_MASKS[king] & occupied]
        | FILE_ATTACKS[king][FILE_MASKS[king] & occupied]
    )
    return bool(straight & (board.rooks | board.queens) & ours)


def square_importance(attacks: int, enemy_king_zone: int) -> int:
    """Developmental value of bearing on `attacks` (Greenblatt: centre and enemy-king proximity)."""
    return (
        popcount(attacks)
        + 2 * popcount(attacks & CENTER16)
        + 2 * popcount(attacks & CENTER4)
        + 3 * popcount(attacks & enemy_king_zone)
    )


def en_prise(board: chess.Board, color: bool, square: int, piece_type: int) -> bool:
    """Whether the piece is attacked and either undefended or attacked by a cheaper piece."""
    attackers = board.attackers_mask(not color, square)
    if not attackers:
        return False
    if not board.is_attacked_by(color, square):
        return True
    value = VALUE[piece_type]
    for attacker in chess.scan_forward(attackers):
        if VALUE[board.piece_type_at(attacker)] < value:
            return True
    return False


def lands_en_prise(board: chess.Board, move: chess.Move) -> bool:
    """Whether the moved piece would be en prise on its new square (Greenblatt: the move is then
    not "safe"): attacked there, and undefended or attacked by a cheaper piece."""
    them = not board.turn
    attackers = board.attackers_mask(them, move.to_square)
    if not attackers:
        return False
    piece = move.promotion or board.piece_type_at(move.from_square)
    if piece == chess.KING:
        return False
    defenders = board.attackers_mask(board.turn, move.to_square)
    if not defenders & ~chess.BB_SQUARES[move.from_square]:
        return True
    value = VALUE[piece]
    return any(VALUE[board.piece_type_at(a)] < value for a in chess.scan_forward(attackers))


def plausibility(board: chess.Board, move: chess.Move, checks: bool = True,
                 safe: bool | None = None) -> int:
    """Greenblatt-style plausibility of `move` (higher is more plausible), a weighted sum of facts.

    See the module docstring for the facts; `checks=False` leaves out the (costly) check test;
    `safe`, if the caller already knows it, is `not lands_en_prise(board, move)`.
    """
    us = board.turn
    them = not us
    from_sq = move.from_square
    to_sq = move.to_square
    piece = board.piece_type_at(from_sq)
    score = 0
    victim = board.piece_type_at(to_sq)
    if victim:
        score += VALUE[victim]
    elif piece == chess.PAWN and to_sq == board.ep_square:
        score += VALUE[chess.PAWN]
    if move.promotion:
        score += VALUE[move.promotion] - VALUE[chess.PAWN]
        piece_after = move.promotion
    else:
        piece_after = piece
    enemy_king = board.king(them)
    zone = chess.BB_KING_ATTACKS[enemy_king] if enemy_king is not None else 0
    occupied = (board.occupied & ~chess.BB_SQUARES[from_sq]) | chess.BB_SQUARES[to_sq]
    before = square_importance(attacks_from(piece, us, from_sq, board.occupied), zone)
    after = square_importance(attacks_from(piece_after, us, to_sq, occupied), zone)
    score += 4 * (after - before)
    if piece == chess.KING:
        if board.is_castling(move):
            score += CASTLE_BONUS
        elif board.queens:
            score -= KING_WALK_PENALTY
    else:
        if board.is_attacked_by(them, from_sq) and en_prise(board, us, from_sq, piece):
            score += VALUE[piece] // 2
        unsafe = lands_en_prise(board, move) if safe is None else not safe
        if unsafe:
            score -= VALUE[piece_after]
        if piece in (chess.KNIGHT, chess.BISHOP) and chess.BB_SQUARES[from_sq] & BACK_RANK[us]:
            score += DEVELOP_BONUS
        if piece != chess.PAWN:
            for home in CENTER_PAWN_HOMES[us]:
                if to_sq == home + (8 if us else -8) and board.pawns & chess.BB_SQUARES[home]:
                    score -= BLOCK_CENTER_PENALTY
    if checks and gives_check(board, move):
        score += CHECK_BONUS
    return score


def quiet_order_key(move: chess.Move, history: list[int]) -> int:
    """Cheap ordering key of a quiet move: history counter, then the move's gain in centrality."""
    return history[move.from_square << 6 | move.to_square] * 8 + (
        CENTRALITY[move.to_square] - CENTRALITY[move.from_square]
    )
