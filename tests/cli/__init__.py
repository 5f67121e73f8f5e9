"""Tests of the ``craits`` command line, in process and as real processes."""
