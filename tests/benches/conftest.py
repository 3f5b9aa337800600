"""Tests of the benchmark scripts in `benches/`: each runs on a small planted input and its
figures are checked against what that input must give (the real runs are in benches/)."""
