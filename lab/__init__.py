"""The lab: engine processes, games, schedules, the results store, ratings, statistics and plots."""
