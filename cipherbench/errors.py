"""Errors that end a command with one clear line and a status code."""


class CipherbenchError(Exception):
    """Something went wrong that the user should read about; exit status 1."""

    exit_code = 1


class UsageError(CipherbenchError):
    """The command line asked for something that does not exist or is malformed; exit 2."""

    exit_code = 2


class RunnerError(CipherbenchError):
    """A runner crashed, hung, or printed something that is not the protocol."""
