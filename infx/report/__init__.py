"""The report path: the sweep report comment, built from a run's jobs, results and chosen checks."""
