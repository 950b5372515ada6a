"""A stand-in for the Obsidian Local REST API plugin (header era, 3.6.2/4.1.7) serving a folder, for tests."""

from tests.obsidian_standin.app import RecordedRequest, StandinState, create_standin_app
from tests.obsidian_standin.server import StandinVault, obsidian_standin

__all__ = ["RecordedRequest", "StandinState", "StandinVault", "create_standin_app", "obsidian_standin"]
