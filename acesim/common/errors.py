"""The one error type the command line turns into a one-line message."""


class AcesimError(Exception):
    """Bad input or an impossible request, explained in one line for the user."""
