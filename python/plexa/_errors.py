"""Plexa's errors as Python exceptions.

Every error from Plexa (a plugin through the C ABI, the parser, the
verifier, the builder, the Python layer's own checks) is a ``PlexaError``
carrying the ABI's status code name in ``.code`` (``"INVALID_ARGUMENT"``)
and the message in ``.message``. Each code has its own subclass; some also
derive from the built-in exception a Python user would catch for it
(``InvalidArgumentError`` is a ``ValueError``, ``NotFoundError`` a
``LookupError``, ``UnimplementedError`` a ``NotImplementedError``).
"""


class PlexaError(Exception):
    """Base class: ``.code`` (the ABI's status code name), ``.message``."""

    code = "UNKNOWN"

    def __init__(self, message, code=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self):
        return f"{self.code}: {self.message}"


class CancelledError(PlexaError):
    code = "CANCELLED"


class UnknownError(PlexaError):
    code = "UNKNOWN"


class InvalidArgumentError(PlexaError, ValueError):
    code = "INVALID_ARGUMENT"


class DeadlineExceededError(PlexaError):
    code = "DEADLINE_EXCEEDED"


class NotFoundError(PlexaError, LookupError):
    code = "NOT_FOUND"


class AlreadyExistsError(PlexaError):
    code = "ALREADY_EXISTS"


class PermissionDeniedError(PlexaError):
    code = "PERMISSION_DENIED"


class ResourceExhaustedError(PlexaError):
    code = "RESOURCE_EXHAUSTED"


class FailedPreconditionError(PlexaError):
    code = "FAILED_PRECONDITION"


class AbortedError(PlexaError):
    code = "ABORTED"


class OutOfRangeError(PlexaError, ValueError):
    code = "OUT_OF_RANGE"


class UnimplementedError(PlexaError, NotImplementedError):
    code = "UNIMPLEMENTED"


class InternalError(PlexaError):
    code = "INTERNAL"


class UnavailableError(PlexaError):
    code = "UNAVAILABLE"


class DataLossError(PlexaError):
    code = "DATA_LOSS"


class UnauthenticatedError(PlexaError):
    code = "UNAUTHENTICATED"


ERROR_CLASSES = {
    cls.code: cls
    for cls in (CancelledError, UnknownError, InvalidArgumentError,
                DeadlineExceededError, NotFoundError, AlreadyExistsError,
                PermissionDeniedError, ResourceExhaustedError,
                FailedPreconditionError, AbortedError, OutOfRangeError,
                UnimplementedError, InternalError, UnavailableError,
                DataLossError, UnauthenticatedError)
}
