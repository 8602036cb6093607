"""
:class:`ActorCriticRLModel`, the base of the actor-critic algorithms (A2C, ACER, ACKTR, PPO1, PPO2, TRPO):
a policy with a ``step`` and a ``proba_step``, and an env runner made on demand.
"""
import warnings
from typing import Any, Callable, List, Optional, Tuple, Union

import numpy as np
from gymnasium import spaces

from stable_baselines.common.policy_parts.action_masks import (checked_masks, enable_masks, env_has_action_masks,
                                                               masked_actions, masked_probabilities, mask_width)
from stable_baselines.common.export import ExportSpec, actor_critic_spec, policy_for_batch
from stable_baselines.common.model.base import BaseRLModel
from stable_baselines.common.model.observations import batch_observation
from stable_baselines.common.model.probabilities import probability_of_actions
from stable_baselines.common.model.recurrent_batch import (InferenceCopies, RecurrentInputs, count_rows,
                                                           recurrent_inputs)
from stable_baselines.common.policies import ActorCriticPolicy, RecurrentActorCriticPolicy
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_util import make_session



class ActorCriticRLModel(BaseRLModel):
    """
    The base of the actor-critic algorithms.

    :param policy: (ActorCriticPolicy or str) the policy class, or its registered name
    :param env: (gymnasium.Env, VecEnv or str) the environment to learn from (None to build a model for ``load``)
    :param _init_setup_model: (bool) build the graph now (the algorithm does it)
    :param verbose: (int) 0 quiet, 1 training information, 2 also TensorFlow's messages
    :param policy_base: (BasePolicy) the class the policy must derive from (default ActorCriticPolicy)
    :param requires_vec_env: (bool) whether the algorithm steps a VecEnv
    :param policy_kwargs: (dict) extra arguments of the policy's constructor
    :param seed: (int) the seed of Python's, NumPy's and TensorFlow's generators (None: not seeded); runs are
        only reproducible with ``n_cpu_tf_sess=1``
    :param n_cpu_tf_sess: (int) TensorFlow's number of threads (None: as many as the machine has)
    """

    # Declared for _n_envs_changed, set only by the vectorised algorithms (A2C, ACER, ACKTR, PPO2): n_steps before
    # this constructor runs, n_batch (None until then) by setup_model. PPO1 and TRPO step a single env and have
    # neither; set_env never calls _n_envs_changed for them.
    n_steps: int
    n_batch: int
    #: whether the algorithm feeds action masks to its rollouts and updates (see common/policy_parts/action_masks.py)
    _supports_action_masks = False

    def __init__(self, policy: Union[type, str], env: Any, _init_setup_model: bool, verbose: int = 0,
                 policy_base: type = ActorCriticPolicy, requires_vec_env: bool = False,
                 policy_kwargs: Optional[dict] = None, seed: Optional[int] = None,
                 n_cpu_tf_sess: Optional[int] = None) -> None:
        super().__init__(policy, env, verbose=verbose, requires_vec_env=requires_vec_env,
                         policy_base=policy_base, policy_kwargs=policy_kwargs, seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)
        self.sess = None
        # the recurrent state of the step model's rows at the start of an episode (None for feed-forward policies)
        self.initial_state: Optional[np.ndarray] = None
        # the policy's step(obs, state, mask, deterministic) and proba_step(obs, state, mask), made by setup_model
        self.step: Optional[Callable[..., Any]] = None
        self.proba_step: Optional[Callable[..., Any]] = None
        # the policy whose step and proba_step the model acts with (set by setup_model through _act_with)
        self.acting_policy: Optional[Any] = None
        self.params = None
        self._runner: Optional[Any] = None
        # copies of a recurrent acting network for other batch sizes than n_envs, made by predict on demand
        self._inference_copies = InferenceCopies()
        # whether the graph restricts actions to those the env's action_masks() allows (decided by setup_model)
        self.uses_action_masks = False

    def _make_runner(self) -> Any:
        """:return: (AbstractEnvRunner) a new runner over ``self.env`` (algorithms with a runner define it)"""
        raise NotImplementedError("This model is not configured to use a Runner")

    @property
    def runner(self) -> Any:
        """(AbstractEnvRunner) the runner collecting experience, made on first use and after ``set_env``"""
        if self._runner is None:
            self._runner = self._make_runner()
        return self._runner

    def set_env(self, env: Any) -> None:
        self._runner = None
        super().set_env(env)

    def _n_envs_changed(self, n_envs: int) -> None:
        # the vectorised actor-critic algorithms (A2C, ACER, ACKTR, PPO2) all declare n_steps and n_batch
        if self.n_batch is not None and self.n_steps is not None:
            self.n_batch = n_envs * self.n_steps

    def _check_policy_class(self) -> None:
        """Raise a clear error when the policy is not an actor-critic policy class."""
        if not (isinstance(self.policy, type) and issubclass(self.policy, ActorCriticPolicy)):
            raise ValueError("Error: the input policy for the {} model must be an instance of "
                             "common.policies.ActorCriticPolicy, got {!r}".format(type(self).__name__, self.policy))

    def _new_graph_and_session(self) -> None:
        """Create the model's own graph and session (the graph seeded when a seed is set)."""
        self.graph = tf.Graph()
        self.uses_action_masks = self._env_gives_action_masks()
        if self.uses_action_masks:
            enable_masks(self.graph)
        with self.graph.as_default():
            self.set_random_seed(self.seed)
            self.sess = make_session(num_cpu=self.n_cpu_tf_sess, graph=self.graph)

    def _env_gives_action_masks(self) -> bool:
        """:return: (bool) whether the env has ``action_masks()`` for a Discrete or MultiDiscrete action space"""
        if not isinstance(self.action_space, (spaces.Discrete, spaces.MultiDiscrete)) \
                or not env_has_action_masks(self.env):
            return False
        unsupported = None if self._supports_action_masks else type(self).__name__
        if isinstance(self.policy, type) and issubclass(self.policy, RecurrentActorCriticPolicy) \
                and not self.policy.declares_state_output():
            # a recurrent policy of the user's that does not say which tensor is its next state
            unsupported = "{} with the recurrent policy {}".format(type(self).__name__, self.policy.__name__)
        if unsupported is not None:
            warnings.warn("{} does not use action masks yet: the action_masks() of the environment are ignored"
                          .format(unsupported))
            return False
        return True

    def get_parameter_list(self) -> List[Any]:
        return self._built(self.params, "params")

    # ------------------------------------------------------------------ acting
    def _act_with(self, policy: Any) -> None:
        """
        Make ``policy`` the one that ``predict``, ``action_probability`` and the rollouts act with: its ``step``
        and ``proba_step`` become the model's.

        :param policy: (ActorCriticPolicy) the acting policy
        """
        self.acting_policy = policy
        self.step, self.proba_step = policy.step, policy.proba_step

    def _acting_inputs(self, batch: Any, state: Any, mask: Any) -> Tuple[Optional[Callable[..., Any]],
                                                                          Optional[Callable[..., Any]],
                                                                          Any, Any, Any, int]:
        """
        :param batch: (np.ndarray) the observations, with a batch axis
        :param state: (np.ndarray) the recurrent state given by the caller, or None
        :param mask: (np.ndarray) the episode-start flags given by the caller, or None
        :return: (callable, callable, np.ndarray, np.ndarray, np.ndarray, int) the ``step`` and ``proba_step`` to
            run, their observations, state and mask, and how many leading rows of their answer are the caller's
        """
        if not issubclass(self.policy, RecurrentActorCriticPolicy):
            return (self.step, self.proba_step, batch, self.initial_state if state is None else state,
                    [False] * self._known_n_envs() if mask is None else mask, count_rows(batch))
        inputs = self._recurrent_inputs(batch, state, mask)
        step, proba_step = self._acting_functions(inputs.batch_size)
        return step, proba_step, inputs.observations, inputs.state, inputs.mask, inputs.n_rows

    def _recurrent_inputs(self, batch: Any, state: Any, mask: Any) -> RecurrentInputs:
        """
        :return: (RecurrentInputs) what a recurrent policy's step is fed for this batch, and the batch size of the
            network to run (see :mod:`stable_baselines.common.model.recurrent_batch`)
        """
        initial_state = self._built(self.initial_state, "initial_state")
        return recurrent_inputs(batch, state, mask, len(initial_state), tuple(initial_state.shape[1:]))

    def _acting_functions(self, batch_size: int) -> Tuple[Optional[Callable[..., Any]],
                                                         Optional[Callable[..., Any]]]:
        """
        :param batch_size: (int) the rows of the batch to act on
        :return: (callable, callable) ``step`` and ``proba_step`` of the acting network, or of its copy built
            for ``batch_size`` rows when that differs from the acting network's (recurrent policies)
        """
        if self.initial_state is None or batch_size == len(self.initial_state):
            return self.step, self.proba_step
        policy_class = self.policy
        observation_space, action_space = self._model_spaces()

        def build(rows: int) -> Any:
            return policy_class(self.sess, observation_space, action_space, rows, 1, rows, reuse=True,
                                **self.policy_kwargs)

        copy = self._inference_copies.get(self.graph, batch_size, build)
        return copy.step, copy.proba_step

    def _predict_in_numpy(self, observation: Any, deterministic: bool) -> Optional[np.ndarray]:
        """
        The fast path of ``predict``: a feed-forward policy computing in NumPy, given an array of the
        observation's shape (or a batch of them) from a Box space.

        :return: (np.ndarray or None) the clipped action(s); None when the general path must answer
        """
        policy = self.acting_policy
        # a step the user put in place of the policy's answers itself (the graph path calls it)
        if policy is None or self.step != policy.step:
            return None
        forward = self.fast_path.copy_of(policy)
        if forward is None or type(observation) is not np.ndarray \
                or not isinstance(self.observation_space, spaces.Box):  # pylint: disable=unidiomatic-typecheck
            return None
        single_shape = forward.obs_shape
        if observation.shape == single_shape:
            batched = False
        elif observation.shape[1:] == single_shape and observation.shape[0] > 0:
            batched = True
        else:
            return None
        actions = forward.act(observation.reshape((-1,) + single_shape), deterministic)
        if actions is None:
            return None
        if isinstance(self.action_space, spaces.Box):
            actions = np.minimum(np.maximum(actions, self.action_space.low), self.action_space.high)
        return actions if batched else actions[0]

    def _predict_masked(self, observation: Any, state: Any, mask: Any, deterministic: bool,
                        action_masks: Any) -> Tuple[np.ndarray, Optional[np.ndarray]]:
        """``predict`` among the allowed actions: the policy's probabilities, masked and renormalised in NumPy."""
        observation_space, action_space = self._model_spaces()
        batch, batched = batch_observation(observation, observation_space)
        step, proba_step, batch, state, mask, n_rows = self._acting_inputs(batch, state, mask)
        masks = checked_masks(action_masks, n_rows, mask_width(action_space))
        probabilities = self._built(proba_step, "proba_step")(batch, state, mask)
        if isinstance(probabilities, list):
            probabilities = [np.asarray(part)[:n_rows] for part in probabilities]
        else:
            probabilities = np.asarray(probabilities)[:n_rows]
        actions = masked_actions(action_space, probabilities, masks, deterministic)
        states = self._built(step, "step")(batch, state, mask)[2] if self.initial_state is not None else None
        return (actions if batched else actions[0]), states

    def predict(self, observation: np.ndarray, state: Optional[np.ndarray] = None, mask: Optional[np.ndarray] = None,
                deterministic: bool = False,
                action_masks: Optional[np.ndarray] = None) -> Tuple[np.ndarray, Optional[np.ndarray]]:
        if action_masks is not None:
            return self._predict_masked(observation, state, mask, deterministic, action_masks)
        actions = self._predict_in_numpy(observation, deterministic)
        if actions is not None:
            return actions, None
        observation_space, _ = self._model_spaces()
        batch, batched = batch_observation(observation, observation_space)
        step, _, batch, state, mask, n_rows = self._acting_inputs(batch, state, mask)
        actions, _, states, _ = self._built(step, "step")(batch, state, mask, deterministic=deterministic)
        actions = actions[:n_rows]
        if isinstance(self.action_space, spaces.Box):
            # the Gaussian is not bounded: keep the actions inside the space
            actions = np.clip(actions, self.action_space.low, self.action_space.high)
        return (actions if batched else actions[0]), states

    def action_probability(self, observation: np.ndarray, state: Optional[np.ndarray] = None,
                           mask: Optional[np.ndarray] = None, actions: Optional[np.ndarray] = None,
                           logp: bool = False, action_masks: Optional[np.ndarray] = None) -> Optional[np.ndarray]:
        observation_space, action_space = self._model_spaces()
        batch, batched = batch_observation(observation, observation_space)
        _, proba_step, batch, state, mask, n_rows = self._acting_inputs(batch, state, mask)
        distribution = self._built(proba_step, "proba_step")(batch, state, mask)
        if isinstance(distribution, list):
            distribution = [np.asarray(part)[:n_rows] for part in distribution]
        else:
            distribution = np.asarray(distribution)[:n_rows]
        if len(distribution) == 0:  # the policy has no formula for this action space
            warnings.warn("Warning: action probability is not implemented for {} action space. Returning None."
                          .format(type(self.action_space).__name__))
            return None
        if action_masks is not None:
            distribution = masked_probabilities(action_space, distribution,
                                                checked_masks(action_masks, n_rows, mask_width(action_space)))
        result = distribution if actions is None else \
            probability_of_actions(action_space, distribution, actions, n_rows, logp)
        if result is None or batched:
            return result
        return result[0]

    def _export_spec(self, batch_size: Optional[int] = None) -> ExportSpec:
        """
        :param batch_size: (int) recurrent policies: the number of sequences stepped at once (None: n_envs)
        :return: (ExportSpec) the acting policy's mode, clipped to a Box action space (and its LSTM state)
        """
        policy = self._built(self.acting_policy, "acting_policy")
        observation_space, action_space = self._model_spaces()
        if batch_size is None or batch_size == self.n_envs or not isinstance(policy, RecurrentActorCriticPolicy):
            return actor_critic_spec(policy, self.sess, observation_space, action_space)
        policy, session = policy_for_batch(self.policy, observation_space, action_space, self.policy_kwargs,
                                           batch_size, self.get_parameters())
        return actor_critic_spec(policy, session, observation_space, action_space, owns_session=True)
