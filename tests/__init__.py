"""The test suite, one package: test modules import shared helpers as ``tests.<area>.helpers``
(conftest.py files hold only fixtures)."""
