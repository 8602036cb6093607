"""
The NumPy fast path of one model, behind one object.

A session call costs far more than the forward pass of a small MLP, so the policies that can (see
:mod:`stable_baselines.common.engine.numpy_forward`) act from a NumPy copy of their weights. Each model owns one
:class:`FastPath` (``model.fast_path``); the algorithms use nothing else to reach the copies:

- ``enable(policy, variables=None)`` when the acting graph is built: the policy keeps a copy if its kind allows;
- nothing after a change of the weights: every session call of the library reports the variables it wrote (a
  training step, a load, MPI synchronisation; see :func:`stable_baselines.common.engine.tf_run.session_run`) to
  ``variables_written``, and the copies holding one of them read the graph again before their next use;
- ``weights_after(policy, ops)`` / ``receive_weights(policy, values)`` for a training step done in one session
  call: the step also returns the copy's new weights, so the copy never needs a call of its own (a
  :class:`~stable_baselines.common.model.session_call.SessionCall` made with ``refresh=`` does both itself);
- ``copy_of(policy)`` for an algorithm that drives the copy itself (DQN's epsilon-greedy choice), and
  ``single_row(policy, observation, shape)`` for ``predict`` on one observation;
- ``sampled_step(policy, observations)`` for the stochastic steps of the on-policy rollouts (A2C, PPO2): actions
  drawn from the copy's distribution, for the distributions in ``sampled_kinds`` (categorical) unless
  ``sample_rollouts`` is False; in a seeded graph from the numbers the graph's sampling op would have drawn
  (``graph_draws_of(policy)``, the same actions as the graph), otherwise with ``generator``;
- ``generator``: the random generator of the actions drawn in NumPy, seeded from the model's seed, reseeded in
  place by ``reseed``.
"""
import weakref
from typing import Any, Callable, FrozenSet, Optional, Sequence, Tuple

import numpy as np

from stable_baselines.common.engine.numpy_forward import make_rng
from stable_baselines.common.policy_parts.base import BasePolicy
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.engine.tf_philox import OpUniformStream
from stable_baselines.common.engine.tf_random_draws import random_ops_behind
from stable_baselines.common.engine.tf_run import watch_writes

# graph_draws_of: a policy whose sampling op was not looked for yet
_NOT_LOOKED_UP: Any = object()


class FastPath:
    """
    The NumPy copies of a model's acting networks, and the generator of their random draws.

    :param seed_of: (callable) returns the model's current seed (None: fresh entropy); read when the generator is
        first needed, so a seed set after construction (``load``) counts
    """

    def __init__(self, seed_of: Callable[[], Optional[int]]) -> None:
        self._seed_of = seed_of
        self._generator: Optional[np.random.Generator] = None
        # the policies holding a copy; weak, so that policies of a replaced graph do not stay alive
        self._policies: "weakref.WeakSet[BasePolicy]" = weakref.WeakSet()
        # policy -> the names of the variable ops its copy reads
        self._read: "weakref.WeakKeyDictionary[Any, FrozenSet[str]]" = weakref.WeakKeyDictionary()
        #: whether :meth:`sampled_step` answers (False: the rollouts draw their actions in the graph)
        self.sample_rollouts = True
        #: the distributions whose rollout actions :meth:`sampled_step` draws: categorical ones only for now; the
        #: Gaussian draws learned measurably worse in PPO2 on the Box identity task (docs/misc/performance.rst)
        self.sampled_kinds: Tuple[str, ...] = ("categorical",)
        # policy -> the seeded uniform op behind its sampled action (None: draw with the generator)
        self._graph_draws: "weakref.WeakKeyDictionary[Any, Optional[OpUniformStream]]" = weakref.WeakKeyDictionary()

    @property
    def generator(self) -> np.random.Generator:
        """(np.random.Generator) the generator of the actions drawn in NumPy"""
        if self._generator is None:
            self._generator = make_rng(self._seed_of())
        return self._generator

    def reseed(self, seed: int) -> None:
        """
        Seed the generator again, in place (the policies keep a reference to it).

        :param seed: (int) the new seed
        """
        if self._generator is not None:
            self._generator.bit_generator.state = make_rng(seed).bit_generator.state

    def enable(self, policy: Any, variables: Optional[Sequence[tf.Variable]] = None) -> bool:
        """
        Let a policy act from a NumPy copy of its network, if its kind supports it (an MLP on a supported space,
        and ``STABLE_BASELINES_NUMPY_FORWARD`` not 0).

        :param policy: (BasePolicy) the acting policy (anything else keeps acting through the graph)
        :param variables: ([tf.Variable]) the network's variables in creation order, for policies that cannot find
            them by scope (DQN's Q-network)
        :return: (bool) whether the policy now has a copy
        """
        if not isinstance(policy, BasePolicy):
            return False
        if variables is None:
            enabled = policy.enable_numpy_forward(self.generator)
        else:
            enabled = policy.enable_numpy_forward(self.generator, variables=variables)
        if enabled:
            self._policies.add(policy)
            self._read[policy] = frozenset(variable.op.name for variable in policy.numpy_forward.variables)
            watch_writes(policy.sess, self)
        return bool(enabled)

    @staticmethod
    def copy_of(policy: BasePolicy) -> Any:
        """
        :param policy: (BasePolicy) a policy of the model
        :return: (Any) its NumPy copy, or None when the graph answers for it
        """
        return policy.numpy_forward

    def variables_written(self, names: Optional[FrozenSet[str]]) -> None:
        """
        Variables of the graph changed (told by the session calls): the copies reading one of them read their
        weights again before their next use.

        :param names: (frozenset) the names of the variable ops written (None: any)
        """
        for policy in list(self._policies):
            read = self._read.get(policy)
            if names is None or read is None or not names.isdisjoint(read):
                policy.invalidate_numpy_forward()

    @staticmethod
    def weights_after(policy: Any, ops: Sequence[Any]) -> Optional[tf.Tensor]:
        """
        A tensor to fetch in the same session call as a training step: the values of the policy copy's variables
        after ``ops`` ran, as one float32 vector (build it in the model's graph).

        :param policy: (BasePolicy) a policy with a copy
        :param ops: ([tf.Operation or tf.Tensor]) the training step's updates
        :return: (tf.Tensor or None) the vector; None when the policy has no copy
        """
        copy = FastPath.copy_of(policy)
        if copy is None:
            return None
        with tf.control_dependencies(list(ops)):
            return tf.concat([tf.reshape(var.read_value(), [-1]) for var in copy.variables], axis=0)

    @staticmethod
    def receive_weights(policy: Any, flat: np.ndarray) -> None:
        """
        Give the policy's copy the weights fetched through :meth:`weights_after`.

        :param policy: (BasePolicy) the policy
        :param flat: (np.ndarray) the fetched vector (its slices are kept, not copied)
        """
        copy = FastPath.copy_of(policy)
        if copy is not None:
            copy.set_flat_weights(flat)

    def single_row(self, policy: Any, observation: Any, observation_space: Any) -> Optional[np.ndarray]:
        """
        The output of the policy's copy for ONE observation, through its preallocated single-row stack (the fast
        path of ``predict``).

        :param policy: (BasePolicy) the acting policy
        :param observation: (Any) what the user passed to ``predict``
        :param observation_space: (gym.Space) the model's observation space (None: not known yet)
        :return: (np.ndarray or None) float32, shape (1, n_out), overwritten by the next call; None when the
            general path must answer (a batch, another type or shape, no copy)
        """
        copy = self.copy_of(policy)
        # an exact ndarray of one observation's shape only; subclasses and other shapes take the general path
        if copy is None or type(observation) is not np.ndarray or observation_space is None \
                or observation.shape != observation_space.shape:  # pylint: disable=unidiomatic-typecheck
            return None
        return copy.row_forward(observation)

    def sampled_step(self, policy: Any, observations: np.ndarray) -> Optional[Tuple[Any, ...]]:
        """
        A stochastic step of a rollout from the policy's copy: the actions drawn with :attr:`generator`, with their
        values and negative log-likelihoods as the graph computes them.

        :param policy: (BasePolicy) the acting policy
        :param observations: (np.ndarray) the current observations, one row per environment
        :return: ((np.ndarray, np.ndarray, None, np.ndarray) or None) actions, values, states, neglogp; None when
            the graph must answer (no copy, ``sample_rollouts`` off, a distribution not in ``sampled_kinds``, input
            the copy does not take)
        """
        copy = self.copy_of(policy) if self.sample_rollouts else None
        if copy is None or copy.kind not in self.sampled_kinds:
            return None
        stream = self.graph_draws_of(policy) if copy.kind == "categorical" else None
        if stream is None or stream.drawn() < 0:
            return copy.step(observations, deterministic=False)
        generator = copy.rng
        copy.rng = stream
        try:
            return copy.step(observations, deterministic=False)
        finally:
            copy.rng = generator

    def graph_draws_of(self, policy: Any) -> Optional[OpUniformStream]:
        """
        The seeded uniform op behind the policy's sampled action, when there is one: the NumPy draws of
        :meth:`sampled_step` then take its numbers (TensorFlow's stream, reproduced by
        :mod:`stable_baselines.common.engine.tf_philox`), so they pick the actions the graph would have picked.

        :param policy: (BasePolicy) the acting policy
        :return: (OpUniformStream or None) the op's stream in the policy's session; None for an unseeded graph or
            an action that does not come from one float32 uniform op (the draws then use :attr:`generator`)
        """
        stream = self._graph_draws.get(policy, _NOT_LOOKED_UP)
        if stream is _NOT_LOOKED_UP:
            stream = self._graph_draws[policy] = _sampling_stream(policy)
        return stream


def _sampling_stream(policy: Any) -> Optional[OpUniformStream]:
    """:return: (OpUniformStream or None) see :meth:`FastPath.graph_draws_of`"""
    action = policy.action
    ops = random_ops_behind([action])
    if len(ops) != 1:
        return None
    op = action.graph.get_operation_by_name(next(iter(ops)))
    if op.type != "RandomUniform" or op.outputs[0].dtype != tf.float32 or not OpUniformStream.is_seeded(op):
        return None
    return OpUniformStream(policy.sess, op)
