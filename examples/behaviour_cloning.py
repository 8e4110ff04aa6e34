"""Behaviour cloning on a Minari dataset of ``trained``'s play (docs/datasets.md).

Records a dataset with :func:`gin3_env.evaluation.dataset.record_dataset`, loads it back with
``minari.load_dataset``, fits a small numpy classifier (observation -> action: one hidden layer, a softmax
over the legal actions only, Adam) and plays it against ``heuristic`` with
:func:`gin3_env.evaluation.evaluate_hands` beside ``random``. Needs the ``dataset`` extra
(``pip install "gin3_env[dataset]"``); numpy only, no torch.

    python examples/behaviour_cloning.py
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

import numpy as np


def dataset_arrays(dataset: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observations, masks, actions) of every step of a Minari dataset: the observation and the legal
    actions each action was chosen at (the episode's last observation, after its end, has no action)."""
    obs, masks, actions = [], [], []
    for episode in dataset.iterate_episodes():
        obs.append(episode.observations[:-1])
        masks.append(episode.infos["action_mask"][:-1])
        actions.append(episode.actions)
    return np.concatenate(obs), np.concatenate(masks).astype(bool), np.concatenate(actions)


class ClonedPolicy:
    """The fitted classifier as a player: the legal action of the highest score (a masked argmax)."""

    name = "bc"

    def __init__(self, params: dict[str, np.ndarray]) -> None:
        self.params = params

    def scores(self, obs: np.ndarray) -> np.ndarray:
        p = self.params
        hidden = np.maximum(obs @ p["w1"] + p["b1"], 0.0)
        return hidden @ p["w2"] + p["b2"]

    def act(self, observation: dict[str, np.ndarray]) -> int:
        obs = np.asarray(observation["observation"], dtype=np.float32)[None, :374]
        legal = np.asarray(observation["action_mask"]).astype(bool)
        return int(np.argmax(np.where(legal, self.scores(obs)[0], -np.inf)))


def fit(obs: np.ndarray, masks: np.ndarray, actions: np.ndarray, hidden: int = 128, epochs: int = 30,
        batch: int = 256, lr: float = 3e-3, seed: int = 0) -> ClonedPolicy:
    """Minimise the cross-entropy of the recorded actions under a softmax over the legal actions."""
    rng = np.random.default_rng(seed)
    n, d = obs.shape
    k = masks.shape[1]
    params = {
        "w1": (rng.standard_normal((d, hidden)) * np.sqrt(2.0 / d)).astype(np.float32),
        "b1": np.zeros(hidden, np.float32),
        "w2": (rng.standard_normal((hidden, k)) * np.sqrt(1.0 / hidden)).astype(np.float32),
        "b2": np.zeros(k, np.float32),
    }
    adam = {name: (np.zeros_like(v), np.zeros_like(v)) for name, v in params.items()}
    step = 0
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch):
            rows = order[start : start + batch]
            x, legal, y = obs[rows], masks[rows], actions[rows]
            pre = x @ params["w1"] + params["b1"]
            h = np.maximum(pre, 0.0)
            logits = np.where(legal, h @ params["w2"] + params["b2"], -1e9)
            logits -= logits.max(axis=1, keepdims=True)
            prob = np.exp(logits)
            prob /= prob.sum(axis=1, keepdims=True)
            grad = prob
            grad[np.arange(len(rows)), y] -= 1.0
            grad /= len(rows)
            dh = (grad @ params["w2"].T) * (pre > 0)
            grads = {"w2": h.T @ grad, "b2": grad.sum(0), "w1": x.T @ dh, "b1": dh.sum(0)}
            step += 1
            for name, g in grads.items():
                m, v = adam[name]
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                m_hat, v_hat = m / (1 - 0.9**step), v / (1 - 0.999**step)
                params[name] -= (lr * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
    return ClonedPolicy(params)


def main(episodes: int = 1000, deals: int = 300, root: str | None = None, seed: int = 0, epochs: int = 30
         ) -> dict[str, float]:
    """Record, load, clone, play: returns the mean points per hand against heuristic of the clone and of random,
    and the clone's accuracy on the recorded actions."""
    import minari

    from gin3_env.evaluation import evaluate_hands
    from gin3_env.evaluation.dataset import record_dataset
    from gin3_env.policies import HeuristicPolicy, RandomPolicy

    root = root or tempfile.mkdtemp(prefix="gin3-datasets-")
    record_dataset("trained", episodes, "gin3/trained-v0", root=root, seed=seed, overwrite=True)
    before = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = root  # where minari.load_dataset looks
    try:
        dataset = minari.load_dataset("gin3/trained-v0")
        obs, masks, actions = dataset_arrays(dataset)
    finally:
        if before is None:
            del os.environ["MINARI_DATASETS_PATH"]
        else:
            os.environ["MINARI_DATASETS_PATH"] = before
    clone = fit(obs, masks, actions, epochs=epochs, seed=seed)
    chosen = np.argmax(np.where(masks, clone.scores(obs), -np.inf), axis=1)
    bc = evaluate_hands(clone, HeuristicPolicy(), deals, seed=seed + 1)
    rand = evaluate_hands(RandomPolicy(seed=seed), HeuristicPolicy(), deals, seed=seed + 1)
    return {"steps": float(len(actions)), "accuracy": float((chosen == actions).mean()),
            "bc_points": bc.overall.mean, "random_points": rand.overall.mean}


if __name__ == "__main__":
    for key, value in main().items():
        print(f"{key}: {value:.3f}")
