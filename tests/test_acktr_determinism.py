"""
ACKTR is reproducible: two fresh Python processes training with ``seed=0`` and ``n_cpu_tf_sess=1`` take the same
action at every step and end with bit-identical parameters (contract 3 of the design).

Two environments and short rollouts (``n_steps=8``: 125 K-FAC updates) are the setting in which the race of the
K-FAC update (a parameter written while the back-propagation of another gradient still read it) made runs differ.
The processes run in the default environment: ``TF_ENABLE_ONEDNN_OPTS`` (which the test suite's conftest sets)
is removed, so TensorFlow uses its oneDNN kernels as it does for a user.
"""
import os
import subprocess
import sys

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOTAL_TIMESTEPS = 2000

TRAIN_SCRIPT = """
import sys

import numpy as np

from stable_baselines import ACKTR
from stable_baselines.bench import Monitor
from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.gym_compat import make_env
from stable_baselines.common.vec_env import DummyVecEnv


class RecordActions(BaseCallback):
    def __init__(self):
        super().__init__()
        self.actions = []

    def _on_step(self):
        self.actions.append(np.array(self.locals["actions"]))
        return True


recorder = RecordActions()
env = DummyVecEnv([lambda: Monitor(make_env("CartPole-v1"), None) for _ in range(2)])
model = ACKTR("MlpPolicy", env, n_steps=8, seed=0, n_cpu_tf_sess=1)
initial = model.get_parameters()
model.learn(int(sys.argv[2]), callback=recorder)
final = model.get_parameters()
arrays = {"actions": np.concatenate(recorder.actions), "num_timesteps": np.array(model.num_timesteps)}
for index, name in enumerate(final):
    arrays["initial_{}".format(index)] = initial[name]
    arrays["final_{}".format(index)] = final[name]
np.savez(sys.argv[1], names=np.array(list(final)), **arrays)
"""


def _start_training(path: str) -> subprocess.Popen:
    env = {key: value for key, value in os.environ.items() if key != "TF_ENABLE_ONEDNN_OPTS"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    return subprocess.Popen([sys.executable, "-c", TRAIN_SCRIPT, path, str(TOTAL_TIMESTEPS)], cwd=REPO_ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_processes_take_the_same_actions_and_end_with_the_same_parameters(tmp_path):
    paths = [str(tmp_path / "run_{}.npz".format(index)) for index in range(2)]
    processes = [_start_training(path) for path in paths]
    for process in processes:
        _, stderr = process.communicate(timeout=900)
        assert process.returncode == 0, stderr[-3000:]
    first, second = (np.load(path) for path in paths)

    assert int(first["num_timesteps"]) == int(second["num_timesteps"]) == TOTAL_TIMESTEPS
    assert first["actions"].shape == second["actions"].shape == (TOTAL_TIMESTEPS,)
    differing_steps = np.flatnonzero(first["actions"] != second["actions"])
    assert differing_steps.size == 0, "the runs act differently from step {}".format(differing_steps[:1])

    names = [str(name) for name in first["names"]]
    assert names == [str(name) for name in second["names"]]
    for index, name in enumerate(names):
        # training moved every parameter but those of the Q head (ACKTR's losses do not use it), and both runs
        # moved it to the very same bits
        trained = not np.array_equal(first["initial_{}".format(index)], first["final_{}".format(index)])
        assert trained == (not name.startswith("model/q/")), name
        np.testing.assert_array_equal(first["initial_{}".format(index)], second["initial_{}".format(index)],
                                      err_msg=name)
        np.testing.assert_array_equal(first["final_{}".format(index)], second["final_{}".format(index)],
                                      err_msg=name)


# ------------------------------------------------------------------------------------------------
# the reason runs can agree: no race in the graph of a training step
# ------------------------------------------------------------------------------------------------
_FORWARDING_OPS = {"Identity", "RefIdentity", "Switch", "RefSwitch", "Enter", "RefEnter", "Merge", "RefMerge"}
_WRITE_OPS = {"Assign", "AssignAdd", "AssignSub"}


def _parents(op) -> list:
    return [tensor.op for tensor in op.inputs] + list(op.control_inputs)


def _topological_order(operations) -> list:
    """Parents before children (a tf.cond rewires inputs after creation, so creation order is not enough)."""
    result, done = [], set()
    for root in operations:
        stack = [(root, False)]
        while stack:
            op, expanded = stack.pop()
            if op in done:
                continue
            if expanded:
                done.add(op)
                result.append(op)
                continue
            stack.append((op, True))
            stack.extend((parent, False) for parent in _parents(op) if parent not in done)
    return result


def _guaranteed_order(graph) -> dict:
    """
    op -> (bit set of the ops it is guaranteed to run after, its own bit), bits indexed by creation order. An op
    waits for all its inputs and control inputs, except a ``Merge`` (the join of a ``tf.cond``): it fires on
    whichever branch is taken, so it only waits for what every one of its inputs waits for.
    """
    operations = graph.get_operations()
    bit = {op: 1 << position for position, op in enumerate(operations)}
    waited = {}
    for op in _topological_order(operations):
        parents = [tensor.op for tensor in op.inputs]
        bits = 0
        if op.type in ("Merge", "RefMerge"):
            branches = [waited[parent] | bit[parent] for parent in parents]
            bits = branches[0]
            for branch in branches[1:]:
                bits &= branch
            parents = []
        for parent in parents + list(op.control_inputs):
            bits |= waited[parent] | bit[parent]
        waited[op] = bits
    return {op: (waited[op], bit[op]) for op in operations}


def _cone(fetches) -> set:
    """The ops a ``session.run`` of ``fetches`` executes (their inputs and control inputs, transitively)."""
    stack = [fetch if hasattr(fetch, "control_inputs") and not hasattr(fetch, "op") else fetch.op for fetch in fetches]
    seen = set(stack)
    while stack:
        op = stack.pop()
        for parent in _parents(op):
            if parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return seen


def _readers_and_writers(variable_op, cone: set):
    """
    The ops of ``cone`` that read the variable's memory (through identity / control-flow forwarding, which alias
    it), each with the tensor it reads it through, and the ops that write it.
    """
    readers, writers = set(), set()
    stack = [variable_op.outputs[0]]
    while stack:
        tensor = stack.pop()
        for consumer in tensor.consumers():
            if consumer not in cone:
                continue
            if consumer.type in _WRITE_OPS and consumer.inputs[0] is tensor:
                writers.add(consumer)
            elif consumer.type in _FORWARDING_OPS:
                stack.extend(consumer.outputs)
            else:
                readers.add((consumer, tensor))
    return readers, writers


def test_every_read_of_a_variable_is_ordered_with_its_write_in_a_training_step():
    """
    A variable read by one op and written by another in the same ``session.run`` must have the two ordered by the
    graph (one is guaranteed to wait for the other); otherwise the session's threads may run them either way and
    seeded runs differ. Checked for every variable a training step writes (parameters, momentum buffers, Kronecker
    factors, eigenbases, counters), on the ops that step runs (losses and train op).
    """
    from stable_baselines import ACKTR

    model = ACKTR("MlpPolicy", "CartPole-v1", n_steps=8, seed=0, n_cpu_tf_sess=1)
    cone = _cone([model.pg_loss, model.vf_loss, model.entropy, model.train_op])
    order = _guaranteed_order(model.graph)

    def ordered(first, second) -> bool:
        return bool(order[first][0] & order[second][1]) or bool(order[second][0] & order[first][1])

    written = 0
    races = []
    for variable_op in sorted((op for op in cone if op.type in ("VariableV2", "VarHandleOp")), key=lambda op: op.name):
        readers, writers = _readers_and_writers(variable_op, cone)
        written += bool(writers)
        for writer in writers:
            for reader, through in readers:
                # a write of the very tensor the reader reads (K-FAC's eigenbases: a tf.cond yields either fresh
                # values or the stored ones, and both are written back) never changes what the reader sees
                if reader is writer or writer.inputs[1] is through:
                    continue
                if not ordered(reader, writer):
                    races.append("{}: {} ({}) unordered with {}".format(variable_op.name, reader.name, reader.type,
                                                                        writer.name))
    # the 12 parameters updated (the Q head is not trained), their 12 momentum buffers, the factors and
    # eigenbases of the 6 dense layers, the step and statistics counters
    assert written >= 12 + 12 + 6 * 6 + 2, written
    assert not races, "\n".join(races[:20])
