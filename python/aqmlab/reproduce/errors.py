"""The reproduction package's user-facing error (its own module, so that every other module of
the package can raise it without importing the loader)."""


class ReproduceError(ValueError):
    """A user-facing error: unknown paper or experiment, bad data file."""
