"""Every setting reaches the sub-settings the layers receive, and each default is written once, on its field."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, SecretStr

from core.settings import Settings, sections

# The properties of `Settings` that build a layer's sub-settings.
SUB_SETTINGS = (
    "vault",
    "embedding",
    "retrieval",
    "store",
    "llm",
    "server",
    "sync",
    "answer",
    "writes",
    "crews",
    "tracing",
)
# Values that need more than "another value of the type", with what they need beside them.
OTHER_VALUES: dict[str, dict[str, Any]] = {
    "vault_path": {"vault_path": Path("/srv/other-vault")},
    "data_dir": {"data_dir": Path("/srv/other-data")},
    "llm_base_url": {"llm_base_url": ("http://127.0.0.1:1234/v1",)},
    "llm_api_key": {"llm_api_key": SecretStr("k" * 20)},
    "llm_api_keys": {
        "llm_base_url": ("http://127.0.0.1:1234/v1",),
        "llm_api_keys": "http://127.0.0.1:1234/v1=" + "k" * 20,
    },
    "llm_denied_ports": {"llm_denied_ports": (9999,)},
    "llm_tools": {"llm_tools": "on"},
    "write_backend": {"write_backend": "files"},
    "reranker_model": {"reranker_model": "Xenova/ms-marco-MiniLM-L-6-v2"},
    "reranker_model_dir": {"reranker_model_dir": Path("/srv/reranker")},
    "rerank_candidates": {"rerank_candidates": 30},
    "otel_exporter_otlp_endpoint": {"otel_exporter_otlp_endpoint": "http://127.0.0.1:4318"},
    "crews_root": {"crews_root": "Crews"},
    "port": {"port": 8001},
}
# Settings that only decide whether the others are accepted at start (no layer reads them).
CHECKED_AT_START = {"llm_denied_ports"}


def other_value(name: str, default: object, annotation: object) -> object:
    """Return a valid value of the field other than its default."""
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        return default + 1
    if isinstance(default, float):
        return default + 0.5
    if isinstance(default, tuple):
        return (*default, "extra")
    if isinstance(default, str):
        return default + "-other"
    args = typing.get_args(annotation)
    if default is None and int in args:
        return 1000
    if default is None and SecretStr in args:
        return SecretStr("s" * 20)
    if default is None and str in args:
        return "other"
    raise AssertionError(f"add a value for {name} to OTHER_VALUES")


def sub_settings(settings: Settings) -> dict[str, dict[str, Any]]:
    return {name: _plain(getattr(settings, name).model_dump()) for name in SUB_SETTINGS}


def _plain(value: object) -> Any:
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


@pytest.mark.parametrize("name", sorted(set(Settings.model_fields) - CHECKED_AT_START))
def test_every_setting_changes_what_some_layer_receives(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("LLM_PROBE_LOCAL_PORTS", "LLM_WARM_UP", "LLM_TOOLS"):  # the test conftest sets them
        monkeypatch.delenv(variable, raising=False)
    field = Settings.model_fields[name]
    base = {"vault_path": Path("/srv/vault"), "data_dir": Path("/srv/data")}
    changed = OTHER_VALUES.get(name) or {name: other_value(name, field.get_default(), field.annotation)}

    before = sub_settings(Settings(_env_file=None, **base))
    after = sub_settings(Settings(_env_file=None, **{**base, **changed}))

    assert before != after, f"{name.upper()} reaches no sub-settings ({', '.join(SUB_SETTINGS)})"


@pytest.mark.parametrize(
    "model",
    [m for m in vars(sections).values() if isinstance(m, type) and issubclass(m, BaseModel) and m is not BaseModel],
)
def test_sub_settings_have_no_defaults_of_their_own(model: type[BaseModel]) -> None:
    defaulted = [name for name, field in model.model_fields.items() if not field.is_required()]

    assert not defaulted, f"{model.__name__} repeats defaults of Settings' fields: {defaulted}"


def test_every_setting_is_described_for_the_configuration_reference() -> None:
    undescribed = [name.upper() for name, field in Settings.model_fields.items() if not field.description]

    assert not undescribed
