"""Balance analysis: statistics, configuration, results, the verdict, the run and its report."""
