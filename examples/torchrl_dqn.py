"""TorchRL: a masked DQN on ``GymEnv("gin3/ThreeHandedGin-v0")`` by TorchRL's documented pieces:
an info reader for ``action_mask`` (``set_info_dict_reader``), the ``ActionMask`` transform (so its
random actions are legal), ``check_env_specs``, a ``QValueActor`` with ``action_mask_key``, a
``SyncDataCollector``, a replay buffer and ``DQNLoss``. Trains a few thousand steps, then plays
evaluation hands greedily and asserts that every action played was legal by its observation's mask.

    pip install torch==2.13.0 && pip install torchrl gin3_env
    python examples/torchrl_dqn.py [--frames 3000] [--episodes 20]
"""

from __future__ import annotations

import argparse

import torch
from tensordict.nn import TensorDictSequential
from torchrl.collectors import Collector
from torchrl.data import Binary, LazyTensorStorage, ReplayBuffer
from torchrl.envs import ActionMask, GymEnv, TransformedEnv
from torchrl.envs.gym_like import default_info_dict_reader
from torchrl.envs.utils import check_env_specs
from torchrl.modules import MLP, EGreedyModule, QValueActor
from torchrl.objectives import DQNLoss, SoftUpdate

import gin3_env  # noqa: F401  (registers the ids)


def make_env(seed: int) -> TransformedEnv:
    base = GymEnv("gin3/ThreeHandedGin-v0", opponent="random")  # TorchRL passes frameskip: refused as a TypeError
    base.set_info_dict_reader(default_info_dict_reader(["action_mask"], spec=[Binary(107, dtype=torch.bool)]))
    env = TransformedEnv(base, ActionMask())
    env.set_seed(seed)
    return env


def main(frames: int = 3000, episodes: int = 20, seed: int = 0) -> dict[str, float]:
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    env = make_env(seed)
    check_env_specs(env)  # a random rollout: ends hands, where the mask is all True
    actor = QValueActor(MLP(out_features=107, num_cells=[128, 128]), in_keys=["observation"],
                        spec=env.action_spec, action_mask_key="action_mask")
    explore = TensorDictSequential(actor, EGreedyModule(env.action_spec, eps_init=0.5, eps_end=0.05,
                                                        annealing_num_steps=frames, action_mask_key="action_mask"))
    loss = DQNLoss(actor, action_space=env.action_spec, delay_value=True)
    loss.make_value_estimator(gamma=0.99)
    target = SoftUpdate(loss, eps=0.99)
    optim = torch.optim.Adam(loss.parameters(), lr=1e-3)
    buffer = ReplayBuffer(storage=LazyTensorStorage(10_000), batch_size=64)
    collector = Collector(env, explore, frames_per_batch=100, total_frames=frames)
    for batch in collector:
        buffer.extend(batch.reshape(-1))
        explore[1].step(batch.numel())
        for _ in range(4):
            values = loss(buffer.sample())
            optim.zero_grad()
            values["loss"].backward()
            optim.step()
            target.step()
    collector.shutdown()
    actions = illegal = 0
    test = make_env(seed + 1)
    for _ in range(episodes):
        rollout = test.rollout(10_000, actor, break_when_any_done=True)
        actions += rollout.numel()
        action = rollout["action"]  # one-hot, as TorchRL's GymEnv gives a Discrete space
        chosen = action.argmax(-1) if action.shape[-1:] == (107,) else action
        illegal += int((~rollout["action_mask"].gather(-1, chosen.unsqueeze(-1))).sum())
    print(f"torchrl: {frames} frames trained, {episodes} evaluation hands, {actions} actions, {illegal} illegal")
    assert actions > 0 and illegal == 0, "an illegal action was played"
    return {"frames": frames, "episodes": episodes, "actions": actions, "illegal": illegal}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--frames", type=int, default=3000)
    parser.add_argument("--episodes", type=int, default=20)
    args = parser.parse_args()
    main(args.frames, args.episodes)
