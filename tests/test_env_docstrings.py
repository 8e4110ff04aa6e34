"""The env docstrings' tables, sizes and signatures are generated from the code (gin3_env/envs/docstrings.py),
as the observation layout's table is: the source holds placeholders, the imported docstring the code's text."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from gin3_env.engine.actions import NUM_ACTIONS
from gin3_env.envs import aec_hand, aec_match, docstrings, single_agent
from gin3_env.observation.layout import MATCH_OBS_SIZE, OBS_SIZE
from gin3_env.observation.state import STATE_SIZE

MODULES = [aec_hand, aec_match, single_agent]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_no_placeholder_is_left_and_the_source_copies_no_size(module: object) -> None:
    doc = module.__doc__ or ""
    assert not docstrings.PLACEHOLDER.findall(doc), docstrings.PLACEHOLDER.findall(doc)
    source = Path(inspect.getfile(module)).read_text()  # type: ignore[arg-type]
    template = source.split('"""', 2)[1]
    assert docstrings.PLACEHOLDER.search(template)
    for size in (OBS_SIZE, MATCH_OBS_SIZE, STATE_SIZE, NUM_ACTIONS):
        assert f"({size},)" not in template and f"[{size}]" not in template and f"({size})" not in template


def test_the_aec_docstrings_hold_the_generated_tables_and_signatures() -> None:
    for module, name, match in ((aec_hand, "env", False), (aec_match, "match_env", True)):
        doc = module.__doc__ or ""
        assert docstrings.signature_block(name, module.raw_env) in doc
        assert docstrings.observation_table(match) in doc
        assert docstrings.action_table() in doc
        assert f"| Observation Shape  | ({MATCH_OBS_SIZE if match else OBS_SIZE},)" in doc
    assert "knock_limit=10" in docstrings.signature_block("env", aec_hand.raw_env)
    assert str(inspect.signature(aec_hand.env)).count("=") == len(inspect.signature(aec_hand.raw_env).parameters)


def test_fill_refuses_a_placeholder_with_no_value() -> None:
    assert docstrings.fill("a {obs} b {\"deck\": 1}") == f'a {OBS_SIZE} b {{"deck": 1}}'
    with pytest.raises(KeyError):
        docstrings.fill("{no_such_text}")
