"""No lab module opens, writes or deletes a file but through the one run mechanism (:mod:`gin3_training.run.run`,
the run folder it holds) or the checked readers and writers of :mod:`gin3_env.files`.

An AST scan of every module under ``training/`` for the calls that touch a file by path: ``open(``,
``Path.write_text/write_bytes/read_text/read_bytes/unlink/touch``, ``os.remove/unlink/rename/replace``,
``shutil.rmtree/move/copy*``, ``np.save/savez/load``, ``torch.save/load``, ``json.load(open(...))``. A call is
allowed where it writes the temporary path of ``with atomic_output(...) as NAME`` (gin3_env.files's atomic write)
or reads an in-memory buffer (``io.BytesIO``), and in the few places of :data:`ALLOWED`, each with its reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

LAB = Path(__file__).resolve().parent.parent / "training"

PATH_METHODS = {"write_text", "write_bytes", "read_text", "read_bytes", "unlink", "touch", "rename", "replace",
                "rmdir", "mkdir", "open"}
OS_CALLS = {"remove", "unlink", "rename", "replace", "rmdir", "removedirs"}
SHUTIL_CALLS = {"rmtree", "move", "copy", "copy2", "copyfile", "copytree"}
NP_CALLS = {"save", "savez", "savez_compressed", "load", "savetxt", "loadtxt", "fromfile"}
TORCH_CALLS = {"save", "load"}
MECHANISM_OBJECTS = {"os", "np", "torch", "json", "shutil", "self", "held", "run", "folder", "zf", "archive", "z",
                     "zipfile"}

# (module under training/, function name) -> why it may touch a file by path
# the mechanism itself: every call there goes through a held folder's descriptor (dir_fd, no link followed)
MECHANISM = {"run/run.py", "run/lock.py", "run/folder.py"}
ALLOWED: dict[tuple[str, str], str] = {
    ("run/checkpoints.py", "write_bytes"): "the fallback of a write outside any held run folder: a partial name "
                                           "beside the target, then a rename (the mechanism's own writer)",
    ("run/checkpoints.py", "_fsync_dir"): "opens a folder read-only to fsync it after a rename",
    ("run/checkpoints.py", "sha256"): "the digest of checkpoint.zip the run just wrote through its held folder",
    ("run/checkpoints.py", "read_checkpoint"): "a checkpoint's sidecar, read after read_model_file checked the zip",
    ("run/checkpoints.py", "_sidecar_digest"): "the sidecar's digest (a mismatch is only a note)",
    ("gates/labels.py", "run_labels"): "without a held folder (a library call), a chunk's part file removed by "
                                       "path once its shard is written",
    ("ppo/rllib/train.py", "save_checkpoint"): "RLlib's pipeline: Ray writes its checkpoint folder by path "
                                               "(swapped in by renames); not on the Run yet",
    ("ppo/rllib/train.py", "check_run_folder"): "RLlib's pipeline: finishes a crashed swap of checkpoint folders",
    ("ppo/rllib/train.py", "_remove_if_empty"): "RLlib's pipeline: removes what a refused run created",
    ("ppo/rllib/algorithm.py", "stop_algorithm"): "removes the empty folder Ray's Trainable made in ~/ray_results",
    ("ppo/rllib/ray_runtime.py", "_descendants"): "reads /proc to find Ray's worker processes",
}


def _is_buffer(node: ast.AST) -> bool:
    """``io.BytesIO(...)``, ``BytesIO(...)`` or a name bound to one (checked loosely: named ``buffer``/``raw``)."""
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return name in ("BytesIO", "StringIO")
    return isinstance(node, ast.Name) and node.id in ("buffer", "buf", "fh", "f", "stream")


def _atomic_names(tree: ast.AST) -> set[str]:
    """The names bound by ``with atomic_output(...) as NAME`` anywhere in ``tree``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                call = item.context_expr
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name | ast.Attribute)
                        and (getattr(call.func, "id", None) or getattr(call.func, "attr", None)) == "atomic_output"
                        and isinstance(item.optional_vars, ast.Name)):
                    names.add(item.optional_vars.id)
    return names


def _offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(LAB).as_posix()
    found: list[str] = []
    if rel in MECHANISM:
        return found
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node

    def function_of(node: ast.AST) -> str:
        while node in parents:
            node = parents[node]
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                return node.name
        return "<module>"

    atomic = _atomic_names(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        first = node.args[0] if node.args else None
        what = None
        if isinstance(func, ast.Name) and func.id == "open":
            if not (isinstance(first, ast.Name) and first.id in atomic):
                what = "open("
        elif isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else ""
            if owner == "os" and func.attr in OS_CALLS | {"open"}:
                what = f"os.{func.attr}("
            elif owner == "shutil" and func.attr in SHUTIL_CALLS:
                what = f"shutil.{func.attr}("
            elif owner == "np" and func.attr in NP_CALLS:
                if first is not None and not _is_buffer(first) and not (isinstance(first, ast.Name)
                                                                        and first.id in atomic):
                    what = f"np.{func.attr}("
            elif owner == "torch" and func.attr in TORCH_CALLS:
                if first is not None and not _is_buffer(first):
                    what = f"torch.{func.attr}("
            elif owner == "json" and func.attr == "load":
                what = "json.load("
            elif (func.attr in PATH_METHODS and owner not in MECHANISM_OBJECTS
                  and func.attr in ("write_text", "write_bytes", "read_text", "read_bytes", "unlink", "touch")):
                what = f".{func.attr}("  # a path-like receiver: anything but the mechanism's own objects
        if what is not None:
            where = function_of(node)
            if (rel, where) not in ALLOWED:
                found.append(f"training/{rel}:{node.lineno} in {where}: {what}")
    return found


def test_no_lab_module_touches_a_file_but_through_the_run_mechanism() -> None:
    offences = [line for path in sorted(LAB.rglob("*.py")) for line in _offences(path)]
    assert not offences, ("lab modules touch files by path; use gin3_training.run.run.Run (the held run folder) "
                          "or gin3_env.files:\n" + "\n".join(offences))


def test_the_scan_finds_what_it_looks_for(tmp_path: Path) -> None:
    bad = LAB / "_scan_probe_tmp.py"
    assert not bad.exists()
    try:
        bad.write_text("import json, os, numpy as np\nfrom pathlib import Path\n\n"
                       "def f(p):\n    open(p, 'w')\n    Path(p).write_text('x')\n    os.remove(p)\n"
                       "    np.save(p, 1)\n    json.load(open(p))\n    p.read_text()\n", encoding="utf-8")
        found = _offences(bad)
    finally:
        bad.unlink()
    kinds = {line.rsplit(": ", 1)[1] for line in found}
    assert {"open(", ".write_text(", "os.remove(", "np.save(", "json.load(", ".read_text("} <= kinds
