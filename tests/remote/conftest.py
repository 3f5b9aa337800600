"""Tests of remote search over real sshd instances on 127.0.0.1 (see `sshd.py`)."""
