"""Application errors that adapters raise and the edges (CLI, HTTP) translate for users."""


class AppError(Exception):
    """Base class for errors a user should see as a clear message, never a traceback."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(AppError):
    """A requested note, path or resource does not exist."""


class InvalidRequest(AppError):
    """The input or configuration is wrong in a way the user can fix."""


class OutOfScope(InvalidRequest):
    """A write to a path no edit may write (outside WRITABLE_FOLDERS, a private folder): naming it again won't help."""


class TooManyWrites(InvalidRequest):
    """A turn has proposed as many changes as MAX_WRITES_PER_TURN allows: the rest wait for the next request."""


class AlreadyDone(InvalidRequest):
    """The note is already as the change would make it (it has the tag, the task is done): there is nothing to do."""

    def __init__(self, state: str) -> None:
        super().__init__(f"{state}; nothing to change")
        self.state = state  # "the note already has the tag 'baking'", as a reply says it


class EmptyVault(InvalidRequest):
    """The vault holds no notes (wrong VAULT_PATH, an unmounted drive, or simply nothing written yet)."""


class EditConflict(AppError):
    """A note changed between proposing an edit and applying it."""


class UpstreamUnavailable(AppError):
    """A backing service (Qdrant, Redis, an LLM endpoint) cannot be reached, or failed while it answered.

    `was_reached` tells the two apart where a user is told which it was: an endpoint that answered with an error,
    broke off mid-reply or sent nothing usable is not "unreachable", and saying so sends users to the wrong fix.
    """

    def __init__(self, service: str, detail: str = "", *, was_reached: bool = False) -> None:
        message = f"{service} is unavailable" + (f": {detail}" if detail else "")
        super().__init__(message)
        self.service = service
        self.was_reached = was_reached


class AlreadyRunning(AppError):
    """The thing asked for is going already and runs one at a time (a crew's run)."""


class IndexModelMismatch(AppError):
    """The index on disk was built with a different embedding model than the one configured."""


class Unauthorized(AppError):
    """The request lacks the right API key."""


class RequestTooLarge(AppError):
    """The request body is above the configured limit."""


class ResourceBusy(UpstreamUnavailable):
    """A store or DATA_DIR is held by another process (it is unavailable to this one, not broken)."""

    def __init__(self, service: str, detail: str) -> None:
        super().__init__(service, detail)
