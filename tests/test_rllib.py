"""The RLlib backend with Ray itself (marked ``rllib``; skipped where Ray is not installed).

``.ci/run`` runs these in a second virtual environment with the ``rllib`` extra
(``pytest -m rllib``). Every Ray process started here binds to 127.0.0.1 (checked
against the machine's listening sockets), has no dashboard, and is stopped by the
test that started it, whatever happens: the in-process instance by
``ray.shutdown()``, the ``ray start`` cluster by ending its own process group (not
``ray stop``, which would stop every Ray process on the machine).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.rllib

from gin3_training.ppo.rllib.ray_runtime import loopback_only  # noqa: E402

loopback_only()  # before Ray is imported, as gin3 train does
ray = pytest.importorskip("ray")

from gin3_env.envs.aec_hand import AGENTS  # noqa: E402
from gin3_env.envs.aec_match import SEATS  # noqa: E402
from gin3_env.evaluation import evaluate_hands  # noqa: E402
from gin3_env.interop.rllib import ENV_NAMES, make_env, register_envs  # noqa: E402
from gin3_env.policies import HeuristicPolicy, load_policy  # noqa: E402
from gin3_env.policies.rllib_policy import SIDECAR, RLlibPolicy  # noqa: E402
from gin3_training.ppo.rllib.config import RLlibConfig  # noqa: E402
from gin3_training.ppo.rllib.train import FINAL_EVAL, STATE_FILE, train_rllib  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
TINY = {"train_batch_size": 200, "minibatch_size": 100, "num_epochs": 1, "hidden": [32], "final_eval_hands": 4}
LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}


# ------------------------------------------------------------------ loopback check
def _address(hex_address: str) -> str:
    raw = bytes.fromhex(hex_address)
    if len(raw) == 4:
        return socket.inet_ntop(socket.AF_INET, raw[::-1])
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))  # /proc stores 4-byte words host-order
    return socket.inet_ntop(socket.AF_INET6, words)


def listening_sockets() -> set[tuple[str, int]]:
    """Every TCP socket listening on this machine, as (address, port)."""
    found = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A":  # LISTEN
                host, port = fields[1].split(":")
                found.add((_address(host), int(port, 16)))
    return found


def assert_new_listeners_on_loopback(before: set[tuple[str, int]]) -> None:
    new = listening_sockets() - before
    assert new, "no listening socket appeared: the check would prove nothing"
    wide = sorted(s for s in new if s[0] not in LOOPBACK)
    assert not wide, f"Ray listens beyond loopback: {wide}"


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A Ray instance in this process, on 127.0.0.1, no dashboard; shut down afterwards."""
    if ray.is_initialized():
        ray.shutdown()
    before = listening_sockets()
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=100 * 1024**2,
        _node_ip_address="127.0.0.1",
        logging_level="WARNING",
    )
    try:
        assert_new_listeners_on_loopback(before)
        yield
    finally:
        ray.shutdown()


# ------------------------------------------------------------------ the env
def _legal(obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


@pytest.mark.parametrize("seed", range(4))
def test_hand_env_speaks_rllib_multi_agent(seed: int) -> None:
    env = make_env("hand", {"reward_scale": 0.5})
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    heuristic = HeuristicPolicy()
    total = dict.fromkeys(AGENTS, 0.0)
    steps = 0
    while True:
        assert len(obs) == 1  # only the agent to act observes
        ((agent, o),) = obs.items()
        space = env.observation_spaces[agent]
        assert set(o) == {"observations", "action_mask"} and space.contains(o)
        if seed % 2:
            action = _legal(o, rng)
        else:
            action = heuristic.act({"observation": o["observations"], "action_mask": o["action_mask"].astype(np.int8)})
        obs, rewards, terminated, truncated, infos = env.step({agent: action})
        steps += 1
        assert set(rewards) == set(AGENTS)  # a reward for every agent at every step
        assert "__all__" in terminated and "__all__" in truncated
        for a, r in rewards.items():
            total[a] += r
        if terminated["__all__"] or truncated["__all__"]:
            break
        assert not any(rewards.values())
    assert set(obs) == set(AGENTS)  # every agent gets its last observation
    assert terminated["__all__"] != truncated["__all__"]
    assert total["team_0"] == -total["box_0"]
    points = infos["team_0"]["points"]
    if infos["team_0"]["winner"] is not None:
        assert abs(total["team_0"]) == pytest.approx(0.5 * points)


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = make_env("hand", {})
    obs, _ = env.reset(seed=1)
    ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(ValueError):
        env.step({agent: illegal})
    assert env.aec.agent_selection == agent and env.aec.hand.turns == 0
    with pytest.raises(ValueError, match="is to act"):
        env.step({"nobody": 0})
    with pytest.raises(ValueError, match="unknown env config key"):
        make_env("hand", {"reward_scal": 1})


def test_match_env_plays_to_the_end_with_per_hand_rewards() -> None:
    env = make_env("match", {"features": "plain", "rules": {"target_score": 30}})
    heuristic = HeuristicPolicy()
    obs, _ = env.reset(seed=7)
    hands = 0
    for _ in range(20_000):
        ((agent, o),) = obs.items()
        action = heuristic.act({"observation": o["observations"], "action_mask": o["action_mask"].astype(np.int8)})
        obs, rewards, terminated, truncated, infos = env.step({agent: action})
        assert set(rewards) == set(SEATS)
        if any(rewards.values()):  # a hand was scored: zero-sum rewards, the points to the scorer's seat
            hands += 1
            assert sum(rewards.values()) == 0
            seat_points = env.aec.infos[SEATS[0]]["seat_points"]
            assert [max(rewards[s], 0.0) for s in SEATS] == pytest.approx([float(p) for p in seat_points])
        if terminated["__all__"]:
            break
    else:
        pytest.fail("the match did not end")
    assert hands >= 1 and not truncated["__all__"] and set(obs) == set(SEATS)
    assert max(infos["player_0"]["scores"]) >= 30


def test_envs_are_registered_with_ray() -> None:
    from ray.tune.registry import ENV_CREATOR, _global_registry

    register_envs()
    for kind, name in ENV_NAMES.items():
        env = _global_registry.get(ENV_CREATOR, name)({"features": "plain"})
        assert env.kind == kind


# ------------------------------------------------------------------ training
def test_two_iterations_on_a_local_ray_then_resume_and_play(
    local_ray: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = RLlibConfig(out_dir=str(tmp_path), run_name="R", policies="per_seat", total_timesteps=400,
                      num_envs_per_env_runner=2, **TINY)
    summary = train_rllib(cfg)
    run = tmp_path / "R"
    checkpoint = run / "checkpoint"
    state = json.loads((checkpoint / STATE_FILE).read_text())
    assert state["iterations"] == 2 and state["timesteps"] >= 400
    assert {"rllib_checkpoint.json", SIDECAR, "learner_group"} <= {p.name for p in checkpoint.iterdir()}
    assert all(set(r["seat_returns"]) <= set(AGENTS) for r in state["history"])
    assert any(r["seat_returns"] for r in state["history"]), "no per-seat return was logged"
    assert list((run / "tb").glob("events.out.tfevents.*"))
    assert set(summary["vs"]) == {"heuristic", "random"}
    assert json.loads((run / "final_eval.json").read_text())["vs"]["heuristic"]["deals"] == 4

    # resumable: one more iteration on top of the checkpoint
    more = RLlibConfig(out_dir=str(tmp_path), run_name="R", policies="per_seat", total_timesteps=600, resume=True,
                       num_envs_per_env_runner=2, **TINY)
    train_rllib(more)
    state = json.loads((checkpoint / STATE_FILE).read_text())
    assert state["iterations"] == 3 and len(state["history"]) == 3
    assert not (run / "checkpoint.partial").exists() and not (run / "checkpoint.old").exists()
    capsys.readouterr()

    # resumed again with the same target: nothing to train, said so, the evaluation not made again
    evaluated = (run / FINAL_EVAL).stat().st_mtime_ns
    again = train_rllib(more)
    out = capsys.readouterr().out
    assert "nothing to train" in out and "[iter" not in out
    assert json.loads((checkpoint / STATE_FILE).read_text())["iterations"] == 3
    assert (run / FINAL_EVAL).stat().st_mtime_ns == evaluated and again["num_timesteps"] == state["timesteps"]

    # played with torch alone, a few hands, never an illegal action (the env would raise)
    policy = load_policy(f"rllib:{checkpoint}")
    assert isinstance(policy, RLlibPolicy) and sorted(policy.nets) == ["box", "team"]
    report = evaluate_hands(policy, HeuristicPolicy(), n_hands=3, seed=11)
    assert report.n_deals == 3
    script = (
        "import sys; from gin3_env.evaluation import evaluate_hands; from gin3_env.policies import load_policy; "
        f"evaluate_hands(load_policy('rllib:{checkpoint}'), load_policy('random'), n_hands=1, seed=0); "
        "assert 'ray' not in sys.modules, 'playing imported ray'"
    )
    played = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert played.returncode == 0, played.stderr[-2000:]


def test_against_the_heuristic_in_the_batched_core_with_an_env_runner(local_ray: None, tmp_path: Path) -> None:
    cfg = RLlibConfig(out_dir=str(tmp_path), run_name="H", policies="vs_heuristic", num_env_runners=1,
                      num_envs_per_env_runner=8, total_timesteps=400, **TINY)
    train_rllib(cfg)
    state = json.loads((tmp_path / "H" / "checkpoint" / STATE_FILE).read_text())
    assert state["iterations"] == 2 and state["timesteps"] >= 400
    assert sum(r["episodes"] for r in state["history"]) > 0  # hands end fast against the heuristic
    assert all(set(r["seat_returns"]) <= {"learner"} for r in state["history"])
    assert any(r["seat_returns"].get("learner", 0) < 0 for r in state["history"])  # an untrained learner loses
    policy = load_policy(f"rllib:{tmp_path / 'H' / 'checkpoint'}")
    assert sorted(policy.nets) == ["default_policy"]
    report = evaluate_hands(policy, HeuristicPolicy(), n_hands=2, seed=3)
    assert report.n_deals == 2


# ------------------------------------------------------------------ a real local cluster
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop_group(proc: subprocess.Popen[bytes], grace: float = 15.0) -> None:
    """End the ``ray start --block`` process and every process of its group (the cluster)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                proc.wait(timeout=5)
                return
            time.sleep(0.2)
    proc.wait(timeout=5)


def test_training_on_a_ray_start_cluster(tmp_path: Path) -> None:
    if ray.is_initialized():
        ray.shutdown()  # the module's own instance is not this cluster's
    port = _free_port()
    ray_bin = Path(sys.executable).parent / "ray"
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
    before = listening_sockets()
    head = subprocess.Popen(
        [str(ray_bin), "start", "--head", "--block", "--node-ip-address", "127.0.0.1", "--port", str(port),
         "--num-cpus", "2", "--include-dashboard", "false", "--disable-usage-stats"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if head.poll() is not None:
                pytest.fail(f"ray start exited with {head.returncode}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        else:
            pytest.fail("the Ray head did not come up within 90 s")
        args = ["--total-timesteps", "200", "--train-batch-size", "200", "--minibatch-size", "100",
                "--num-epochs", "1", "--hidden", "[32]", "--final-eval-hands", "4", "--num-env-runners", "1"]
        result = subprocess.run(
            [sys.executable, "-m", "gin3_env.cli", "train", "--backend", "rllib", "--address", f"127.0.0.1:{port}",
             "--out-dir", str(tmp_path), "--run-name", "C", *args],
            env={**env, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=600,
        )
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        assert f"the Ray cluster at 127.0.0.1:{port}" in result.stdout
        output = result.stdout + result.stderr  # Ray's warnings and colour escapes stay out of the log
        assert "\x1b[" not in output and "WARNING" not in output and "Deprecation" not in output, output[-3000:]
        assert "heuristic" in result.stdout and "as team" in result.stdout  # the evaluation table
        assert_new_listeners_on_loopback(before)
        assert (tmp_path / "C" / "checkpoint" / SIDECAR).is_file()
    finally:
        _stop_group(head)
        # what `ray stop` would also remove: the file naming the (now gone) cluster
        current = Path("/tmp/ray/ray_current_cluster")
        if current.is_file() and current.read_text().strip() == f"127.0.0.1:{port}":
            current.unlink()
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0, "the cluster is still up"


# ------------------------------------------------------------------ Ctrl-C and the run lock
def _children() -> dict[int, list[int]]:
    """Every process's children, from /proc (pid -> child pids)."""
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry.name))
    return tree


def _descendants(pid: int) -> set[int]:
    tree, found, todo = _children(), set(), [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    """True for a running process (a zombie, dead but not yet reaped, is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _cmdline(pid: int) -> str:
    try:
        return f"{pid} " + Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
    except OSError:
        return f"{pid} (gone)"


def _in_session(sid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":  # fields[3]: the session id
                found.add(int(entry.name))
    return found


RUN_ARGS = ["--total-timesteps", "10000000", "--num-cpus", "1", "--train-batch-size", "200", "--minibatch-size",
            "100", "--num-epochs", "1", "--hidden", "[32]"]


class _Run:
    """A real ``gin3 train --backend rllib`` subprocess in a session of its own, stdout read line by line."""

    def __init__(self, tmp_path: Path, args: list[str]) -> None:
        import threading

        self.command = [sys.executable, "-m", "gin3_env.cli", "train", "--backend", "rllib", *args]
        self.env = {**os.environ, "PYTHONPATH": str(REPO), "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
                    "RAY_USAGE_STATS_ENABLED": "0"}
        self.stderr_path = tmp_path / "stderr.txt"
        with self.stderr_path.open("w") as stderr:
            self.proc = subprocess.Popen(self.command, env=self.env, stdout=subprocess.PIPE, stderr=stderr, text=True,
                                         start_new_session=True)
        self.lines: list[str] = []
        stdout = self.proc.stdout
        assert stdout is not None
        self.reader = threading.Thread(target=lambda: self.lines.extend(iter(stdout.readline, "")), daemon=True)
        self.reader.start()
        self.seen: set[int] = set()

    def wait_for_iterations(self, count: int, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while sum(line.startswith("[iter") for line in self.lines) < count:
            assert self.proc.poll() is None, f"gin3 train ended early ({self.proc.returncode}): {self.stderr()[-2000:]}"
            assert time.monotonic() < deadline, f"not {count} iteration(s) within {timeout} s"
            time.sleep(0.1)
        self.seen = _descendants(self.proc.pid)
        assert self.seen, "gin3 train started no Ray process: the process check would prove nothing"

    def stderr(self) -> str:
        return self.stderr_path.read_text()

    def assert_nothing_left(self, grace: float = 15.0) -> None:
        deadline = time.monotonic() + grace  # give Ray a few seconds to go
        while (left := self.left()) and time.monotonic() < deadline:
            time.sleep(0.3)
        assert not left, f"processes of the stopped run remain: {[_cmdline(p) for p in sorted(left)]}"

    def left(self) -> set[int]:
        return {p for p in self.seen | _in_session(self.proc.pid) if _alive(p)}

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        for pid in self.left():
            os.kill(pid, signal.SIGKILL)


def test_sigint_checkpoints_says_how_to_resume_and_leaves_no_process(tmp_path: Path) -> None:
    args = ["--out-dir", str(tmp_path), "--run-name", "S", *RUN_ARGS, "--checkpoint-every", "1000"]
    run = _Run(tmp_path, args)
    try:
        run.wait_for_iterations(1)

        # one run, one writer: a second gin3 train on the same run folder refuses at once
        second = subprocess.run([*run.command, "--resume"], env=run.env, capture_output=True, text=True, timeout=120)
        assert second.returncode == 2, second.stderr[-2000:]
        assert second.stderr.count("\n") == 1 and "is in use by another gin3 train" in second.stderr
        assert f"(pid {run.proc.pid})" in second.stderr

        os.killpg(run.proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the whole group, Ray's processes too
        code = run.proc.wait(timeout=90)
        run.reader.join(timeout=10)
        err = run.stderr()
        assert code == 130, err[-3000:]
        assert "SIGINT received: stopping after the current iteration" in err
        checkpoint = tmp_path / "S" / "checkpoint"
        assert f"checkpoint written to {checkpoint.resolve()}" in err
        resume = f"resume with: gin3 train --backend rllib {' '.join(args)} --resume"
        assert resume.replace("[32]", "'[32]'") in err, err[-3000:]
        state = json.loads((checkpoint / STATE_FILE).read_text())
        printed = sum(line.startswith("[iter") for line in run.lines)
        assert state["iterations"] == printed >= 1 and len(state["history"]) == printed  # the one in flight too
        assert (checkpoint / SIDECAR).is_file()
        assert not (tmp_path / "S" / "checkpoint.partial").exists()
        assert not (tmp_path / "S" / "final_eval.json").exists()  # stopped: no final evaluation
        run.assert_nothing_left()
    finally:
        run.kill()


def test_a_second_sigterm_stops_at_once_and_keeps_the_last_checkpoint(tmp_path: Path) -> None:
    args = ["--out-dir", str(tmp_path), "--run-name", "T", *RUN_ARGS, "--checkpoint-every", "1"]
    run = _Run(tmp_path, args)
    try:
        run.wait_for_iterations(2)  # checkpoint_every 1: a complete checkpoint is on disk
        os.kill(run.proc.pid, signal.SIGTERM)
        time.sleep(0.2)
        os.kill(run.proc.pid, signal.SIGTERM)
        code = run.proc.wait(timeout=60)
        err = run.stderr()
        assert code == 143, err[-3000:]
        assert "SIGTERM again: stopped at once" in err and "resume with" not in err
        state = json.loads((tmp_path / "T" / "checkpoint" / STATE_FILE).read_text())  # whole, and readable
        assert state["iterations"] >= 2
        assert load_policy(f"rllib:{tmp_path / 'T' / 'checkpoint'}") is not None
        run.assert_nothing_left()
    finally:
        run.kill()


SHUTDOWN_PROBE = """
import os, signal, time
import ray._private.state as ray_state
from gin3_training.ppo.rllib.ray_runtime import connect, shutdown

def term_caught():  # SIGTERM has a handler below Python (not the default action)
    with open("/proc/self/status") as f:
        return any(line.startswith("SigCgt") and int(line.split()[1], 16) >> 14 & 1 for line in f)

handled, events = [], []
def handler(signum, frame):
    handled.append(signum)

connect("", 1)
signal.signal(signal.SIGTERM, handler)
# ray.shutdown calls the state client's disconnect once its core worker has stopped, which is when
# SIGTERM has been reset; from there on, Ray goes on stopping its processes for a second or so
state_disconnect = ray_state.state.disconnect
def after_the_core_worker_stopped(*args, **kwargs):
    if not events:
        events.append("reset" if not term_caught() else "kept")
        deadline = time.monotonic() + 5
        while not term_caught() and time.monotonic() < deadline:  # the caller's handler is back
            time.sleep(0.001)
        os.kill(os.getpid(), signal.SIGTERM)  # its handler runs in the main thread, still in shutdown
    return state_disconnect(*args, **kwargs)
ray_state.state.disconnect = after_the_core_worker_stopped
shutdown(keep_handlers=lambda: signal.signal(signal.SIGTERM, handler))
print(events, handled, flush=True)
"""


def test_a_signal_while_ray_shuts_down_reaches_the_stop_handler() -> None:
    """``ray.shutdown`` sets SIGTERM to its default action below Python when its core worker stops,
    then goes on stopping Ray for about a second: a SIGTERM there killed ``gin3 train`` with no exit
    code and no cleanup. :func:`shutdown` keeps the caller's handler in place while Ray stops. The
    probe sends its signal from inside ``ray.shutdown``, just after the reset (a hook on the call
    that follows it), once the handler is back: no race with Ray's timing. Without the fix the
    handler never comes back and the signal kills the probe."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAY_USAGE_STATS_ENABLED": "0"}
    done = subprocess.run([sys.executable, "-c", SHUTDOWN_PROBE], env=env, capture_output=True, text=True,
                          timeout=120, start_new_session=True)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.strip() == "['reset'] [15]", done.stdout


def test_a_held_run_folder_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gin3_training.ppo.rllib.train import main
    from gin3_training.run.lock import RunLock

    with RunLock(tmp_path / "L"):
        code = main(["--out-dir", str(tmp_path), "--run-name", "L", "--total-timesteps", "200"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "is in use by another gin3 train" in err
    assert [p.name for p in (tmp_path / "L").iterdir()] == [".lock"]  # nothing else written
