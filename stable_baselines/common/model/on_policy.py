"""
The on-policy family. :class:`ActorCriticRLModel` is the base of the actor-critic algorithms (A2C, ACER, ACKTR,
PPO1, PPO2, TRPO): a policy with a ``step`` and a ``proba_step``, and an env runner made on demand.
:class:`OnPolicyRLModel` is the update loop of those that step a VecEnv with a runner (A2C, ACER, ACKTR, PPO2),
written once: collect a rollout, train on it, log (what PPO1, TRPO and GAIL share is in
:mod:`stable_baselines.common.model.segments`). An algorithm supplies its train step
(:meth:`_train_on_rollout`) and the rows of its logger table (:meth:`_record_update`); its runner's rollout gives the
episode data as ``ep_infos``, ``true_rewards`` and ``episode_flags``. The frame around the loop is
:meth:`BaseRLModel._learning`.

The variables a callback sees at ``on_training_start`` are those the original's ``learn`` had (its arguments,
``new_tb_log``, ``writer``) and the algorithm's own (:meth:`_start_training`).
"""
import sys
import time
import warnings
from abc import abstractmethod
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar, Union

import numpy as np
from gymnasium import spaces

from stable_baselines import logger
from stable_baselines.common import tf_util
from stable_baselines.common.callbacks import BaseCallback
from stable_baselines.common.export import ExportSpec, actor_critic_spec, policy_for_batch
from stable_baselines.common.model.base import BaseRLModel
from stable_baselines.common.model.data_parallel import rank_count, ranks_training
from stable_baselines.common.model.observations import batch_observation
from stable_baselines.common.model.pretraining import pretrain_placeholders
from stable_baselines.common.model.probabilities import probability_of_actions
from stable_baselines.common.model.recurrent_batch import (InferenceCopies, RecurrentInputs, count_rows,
                                                           recurrent_inputs)
from stable_baselines.common.model.summaries import input_info_summaries
from stable_baselines.common.policies import ActorCriticPolicy, RecurrentActorCriticPolicy
from stable_baselines.common.policy_parts.action_masks import (checked_masks, enable_masks, env_has_action_masks,
                                                               masked_actions, masked_probabilities, mask_width)
from stable_baselines.common.schedules import SCHEDULES, Scheduler
from stable_baselines.common.tf_compat import tf
from stable_baselines.common.tf_util import make_session, total_episode_reward_logger


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


def learn_locals(model: Any, total_timesteps: int, callback: BaseCallback, log_interval: int, tb_log_name: str,
                 reset_num_timesteps: bool, progress_bar: bool, writer: Any) -> Dict[str, Any]:
    """
    The variables of ``learn`` that a callback sees from ``on_training_start`` on.

    :param model: (BaseRLModel) the model (``self``), inside its :meth:`_learning` block
    :param total_timesteps: (int) the argument of ``learn``
    :param callback: (BaseCallback) the callback made by the frame
    :param log_interval: (int) the argument of ``learn``
    :param tb_log_name: (str) the argument of ``learn``
    :param reset_num_timesteps: (bool) the argument of ``learn``
    :param progress_bar: (bool) the argument of ``learn``
    :param writer: (tf.summary.FileWriter) the tensorboard writer, or None
    :return: (dict) the variables by name
    """
    # right after the frame counted (or kept) the timesteps: a new tensorboard run starts when none were counted
    new_tb_log = model.num_timesteps == 0
    return dict(self=model, total_timesteps=total_timesteps, callback=callback, log_interval=log_interval,
                tb_log_name=tb_log_name, reset_num_timesteps=reset_num_timesteps, progress_bar=progress_bar,
                new_tb_log=new_tb_log, writer=writer)


# the constructor arguments every on-policy model shares, for the end of its docstring
MODEL_SETTINGS_DOC = """\
    :param verbose: (int) amount of output: 0 nothing, 1 training statistics, 2 also TensorFlow messages
    :param tensorboard_log: (str) directory for the tensorboard event files (None: no tensorboard logging)
    :param _init_setup_model: (bool) build the graph in the constructor (False is used when loading)
    :param policy_kwargs: (dict) extra keyword arguments for the policy constructor
    :param full_tensorboard_log: (bool) add histograms and run metadata to the tensorboard log
        (the files can become large)
    :param seed: (int) seed of the python, numpy and TensorFlow generators; None leaves them unseeded.
        Runs are only reproducible with ``n_cpu_tf_sess=1``
    :param n_cpu_tf_sess: (int) number of threads of the TensorFlow session
        (None: as many as the machine has cores)
"""


_Model = TypeVar("_Model", bound="OnPolicyRLModel")
# the curves of the named learning-rate schedules (functions of the progress only)
_PURE_CURVES = tuple(SCHEDULES.values())


class UpdateClock:
    """
    The times of one ``learn``: its start and the start of the current update.

    :param started: (float) ``time.time()`` at the start of training
    """

    def __init__(self, started: float) -> None:
        self.started = started
        self.update_started = started

    def fps(self, n_samples: int, since_update: bool = False) -> int:
        """
        :param n_samples: (int) the transitions collected since the chosen start
        :param since_update: (bool) count from the start of the current update (False: of training)
        :return: (int) transitions per second
        """
        start = self.update_started if since_update else self.started
        return int(n_samples / (time.time() - start))


class OnPolicyRLModel(ActorCriticRLModel):
    """
    The base of A2C, ACER, ACKTR and PPO2: ``learn`` repeats collect (the runner) -> train -> log.

    Subclasses define ``n_steps`` and ``n_batch`` (transitions of one rollout) and the hooks below.
    """

    # set by the algorithms: steps per env of a rollout, transitions of a rollout (n_envs * n_steps, known once
    # the graph is built), and for A2C, ACER and ACKTR the learning rate, the name of its schedule and the
    # schedule itself (made by each learn)
    n_steps: int
    n_batch: int
    # made by setup_model: the value of the acting network and the merged tensorboard summaries
    value: Any
    summary: Any
    full_tensorboard_log: bool
    # made by setup_model: the training network and inputs of an update (A2C and ACKTR; PPO2 has the last three)
    train_model: Any
    actions_ph: Any
    rewards_ph: Any
    advs_ph: Any
    learning_rate_ph: Any
    learning_rate: Any
    lr_schedule: str
    learning_rate_schedule: Scheduler
    # names of further settings every MPI rank of a data-parallel learn must share (see ranks_training)
    _rank_agreed: Tuple[str, ...] = ()

    def __init__(self, policy: Any, env: Any, verbose: int, _init_setup_model: bool,
                 policy_kwargs: Optional[Dict[str, Any]], seed: Optional[int], n_cpu_tf_sess: Optional[int]) -> None:
        # the arguments are those of the algorithms' constructors; the runner steps a VecEnv
        super().__init__(policy, env, _init_setup_model, verbose=verbose, requires_vec_env=True,
                         policy_kwargs=policy_kwargs, seed=seed, n_cpu_tf_sess=n_cpu_tf_sess)

    def _learn_on_policy(self: _Model, total_timesteps: int, callback: Any, log_interval: int, tb_log_name: str,
                         reset_num_timesteps: bool, progress_bar: bool) -> _Model:
        """
        The body of every ``learn`` of these algorithms (the arguments are those of ``learn``).

        :return: (OnPolicyRLModel) the model
        """
        with self._learning(total_timesteps, callback, tb_log_name, reset_num_timesteps,
                            progress_bar=progress_bar, log_interval=log_interval) as (callback, writer):
            visible = learn_locals(self, total_timesteps, callback, log_interval, tb_log_name,
                                   reset_num_timesteps, progress_bar, writer)
            clock = UpdateClock(time.time())
            loop = self._start_training(total_timesteps, clock.started)
            visible.update(loop)
            with ranks_training(self, total_timesteps, callback, self._rank_agreed) as after_update:
                callback.on_training_start(visible, vars(sys.modules[type(self).__module__]))
                for update in range(1, 1 + self._n_updates(total_timesteps)):
                    if not self._one_update(update, callback, writer, log_interval, loop, clock):
                        break
                    after_update(update)
                callback.on_training_end()
        return self

    def _build_policies(self, minibatches: int = 1,
                        bootstrap_step: bool = False) -> Tuple[ActorCriticPolicy, ActorCriticPolicy]:
        """
        Create the acting network (one step for every environment) and, sharing its weights, the training
        network (``n_steps`` of every environment at once, or of one minibatch of them).

        :param minibatches: (int) the training network sees ``n_envs // minibatches`` environments (PPO2)
        :param bootstrap_step: (bool) the training network also reads the observation after the last step, in a
            batch of fixed size (ACER)
        :return: (ActorCriticPolicy, ActorCriticPolicy) the acting and the training network
        """
        observation_space, action_space, n_envs = self._graph_inputs()
        recurrent = issubclass(self.policy, RecurrentActorCriticPolicy)
        training_envs = n_envs // minibatches
        if recurrent:
            # a recurrent training batch is made of whole environment sequences (at least one): with a number of
            # envs that ``minibatches`` does not divide the model acts but cannot train (learn says so)
            training_envs = max(training_envs, 1)
        training_steps = self.n_steps + 1 if bootstrap_step else self.n_steps
        # recurrent networks need fixed batch sizes to split the sequences; the others accept any size
        fixed_batch = recurrent or bootstrap_step
        spaces_args = (self.sess, observation_space, action_space)

        acting = self.policy(*spaces_args, n_envs, 1, n_envs if recurrent else None, reuse=False,
                             **self.policy_kwargs)
        share_weights = tf_util.outer_scope_getter("train_model")
        with tf.variable_scope("train_model", reuse=True, custom_getter=share_weights):
            training = self.policy(*spaces_args, training_envs, training_steps,
                                   training_envs * training_steps if fixed_batch else None, reuse=True,
                                   **self.policy_kwargs)
        return acting, training

    def _summarise_returns_inputs(self, train_model: ActorCriticPolicy) -> None:
        """
        For A2C and ACKTR: the "input_info" summaries of the returns, the learning rate and the advantages an
        update is fed (and of the observations).

        :param train_model: (ActorCriticPolicy) the training network
        """
        inputs = [('discounted_rewards', self.rewards_ph), ('learning_rate', self.learning_rate_ph),
                  ('advantage', self.advs_ph)]
        input_info_summaries(inputs, train_model.obs_ph, self._graph_inputs()[0], self.full_tensorboard_log)

    def _update_feed(self, obs: np.ndarray, states: Optional[np.ndarray], rewards: np.ndarray, masks: np.ndarray,
                     actions: np.ndarray, values: np.ndarray, learning_rate: float,
                     action_masks: Optional[np.ndarray]) -> Dict[Any, Any]:
        """
        For A2C and ACKTR: the inputs of an update from a rollout (the advantages: returns minus values).

        :param obs: ([float]) observations of the rollout
        :param states: ([float]) recurrent state at the start of the rollout (None for feed-forward policies)
        :param rewards: ([float]) the returns (the value targets)
        :param masks: ([bool]) episode-start flags (used by recurrent policies)
        :param actions: ([float]) actions that were taken
        :param values: ([float]) value estimates made while acting
        :param learning_rate: (float) the learning rate of the update
        :param action_masks: ([bool]) the allowed actions of each transition (None: the model uses no masks)
        :return: (dict) the values by input
        """
        net = self.train_model
        feed = {net.obs_ph: obs, self.actions_ph: actions, self.advs_ph: rewards - values, self.rewards_ph: rewards,
                self.learning_rate_ph: learning_rate}
        if states is not None:
            assert isinstance(net, RecurrentActorCriticPolicy), "a policy with a state is recurrent"
            feed[net.states_ph] = states
            feed[net.dones_ph] = masks
        if action_masks is not None:
            feed[net.action_mask_ph] = action_masks
        return feed

    def _get_pretrain_placeholders(self) -> Tuple[Any, Any, Any]:
        # A2C and ACKTR pretrain their training network
        return pretrain_placeholders(self.train_model, self.actions_ph, self.action_space)

    def _act_and_initialise(self, acting: ActorCriticPolicy) -> None:
        """
        The end of ``setup_model`` for A2C, ACKTR and PPO2: act with ``acting`` (in NumPy where possible, the copy
        of the weights refreshed after each update), initialise the variables and merge the summaries.

        :param acting: (ActorCriticPolicy) the acting network
        """
        self._act_with(acting)
        self.value, self.initial_state = acting.value, acting.initial_state
        tf.global_variables_initializer().run(session=self.sess)
        self.fast_path.enable(acting)
        self.summary = tf.summary.merge_all()

    def _train_step_logged(self, feed_dict: Dict[Any, Any], fetches: List[Any], update: int, global_step: int,
                           writer: Any) -> List[Any]:
        """
        The update when tensorboard is on: the summaries are evaluated with it, and with ``full_tensorboard_log``
        every tenth update also records a full trace (memory, compute time).

        :param feed_dict: (dict) the inputs of the update
        :param fetches: ([TensorFlow Tensor]) the values to log, then the training operation
        :param update: (int) index of this update
        :param global_step: (int) the tensorboard step
        :param writer: (TensorFlow Summary.writer) tensorboard writer
        :return: ([Any]) the values of ``fetches`` but the last
        """
        run_kwargs: Dict[str, Any] = {}
        trace = self.full_tensorboard_log and (1 + update) % 10 == 0
        if trace:
            run_kwargs = dict(options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                              run_metadata=tf.RunMetadata())
        results = tf_util.session_run(self.sess, [self.summary] + fetches, feed_dict, **run_kwargs)
        if trace:
            writer.add_run_metadata(run_kwargs["run_metadata"], 'step%d' % global_step)
        writer.add_summary(results[0], global_step)
        return results[1:-1]

    def _record_rows(self, update: int, fps: int, rows: List[Tuple[str, float]]) -> None:
        """
        For A2C and ACKTR: record the logger table of an update (its index, the timesteps, ``fps``, then ``rows``
        and the episode statistics).

        :param update: (int) the index of the update, from 1
        :param fps: (int) transitions per second since the start of training
        :param rows: ([(str, float)]) the algorithm's rows
        """
        for key, value in [("nupdates", update), ("total_timesteps", self.num_timesteps), ("fps", fps)] + rows:
            logger.record_tabular(key, value)
        self._log_episode_stats()

    def _global_batch(self) -> int:
        """:return: (int) the transitions of one update over all MPI ranks (``n_batch`` in one process)"""
        return self.n_batch * rank_count(self._data_parallel)

    def _one_update(self, update: int, callback: BaseCallback, writer: Any, log_interval: int,
                    loop: Dict[str, Any], clock: UpdateClock) -> bool:
        """
        Collect one rollout, train on it, write the tensorboard episode rewards and (every ``log_interval``
        updates) the logger table.

        :return: (bool) False when the callback stopped the training during the rollout
        """
        clock.update_started = time.time()
        callback.on_rollout_start()
        rollout = self.runner.run(callback)
        callback.on_rollout_end()
        if not self.runner.continue_training:
            return False

        ep_infos, true_rewards, episode_flags = rollout.ep_infos, rollout.true_rewards, rollout.episode_flags
        assert self.ep_info_buf is not None and self.episode_reward is not None and self.n_envs is not None, \
            "made by _setup_learn"
        if self._data_parallel is not None:
            ep_infos = self._data_parallel.gather(list(ep_infos))
        self.ep_info_buf.extend(ep_infos)
        stats = self._train_on_rollout(rollout, update, writer, loop)
        if writer is not None:
            per_env = (self.n_envs, self.n_steps)
            total_episode_reward_logger(self.episode_reward, true_rewards.reshape(per_env),
                                        episode_flags.reshape(per_env), writer, self.num_timesteps)
        if self.verbose >= 1 and self._logs_update(update, log_interval) and \
                (self._data_parallel is None or self._data_parallel.is_root):
            self._record_update(update, stats, loop, clock)
            logger.dump_tabular()
        return True

    def _start_rate_schedule(self, total_timesteps: int) -> None:
        """
        For A2C, ACER and ACKTR: a new ``learning_rate_schedule`` (``lr_schedule`` from ``learning_rate``) over the
        transitions of this ``learn`` (over zero timesteps it is never read).

        :param total_timesteps: (int) the timesteps of this call
        """
        self.learning_rate_schedule = Scheduler(initial_value=self.learning_rate,
                                                n_values=max(int(total_timesteps), 1), schedule=self.lr_schedule)

    def _advance_learning_rate(self, n_samples: int) -> float:
        """
        For the algorithms whose rate follows a :class:`~stable_baselines.common.schedules.Scheduler` in
        ``learning_rate_schedule`` (A2C, ACKTR): one tick per transition of the batch.

        :param n_samples: (int) the transitions of the batch (at least one)
        :return: (float) the rate after the last tick
        """
        schedule = self.learning_rate_schedule
        if type(schedule) is Scheduler and schedule.schedule in _PURE_CURVES:  # pylint: disable=unidiomatic-typecheck
            # the library's curves have no side effects: only the last tick's value is computed (the step count
            # is a float holding whole numbers, so one addition equals the n - 1 single steps)
            schedule.step += n_samples - 1
            return schedule.value()
        for _ in range(n_samples - 1):
            schedule.value()
        return schedule.value()

    # ------------------------------------------------------------------ what the algorithms supply
    def _start_training(self, total_timesteps: int, started: float) -> Dict[str, Any]:
        """
        Prepare a ``learn`` (schedules, buffers) once the frame is open.

        :param total_timesteps: (int) the timesteps of this call
        :param started: (float) ``time.time()`` at the start of training
        :return: (dict) the algorithm's variables of the loop, shown to the callback by name; the same dict is
            handed to the other hooks
        """
        return {"t_start": started}

    def _n_updates(self, total_timesteps: int) -> int:
        """
        :param total_timesteps: (int) the timesteps of this call
        :return: (int) the number of rollouts (each of ``n_batch`` transitions on every rank)
        """
        return total_timesteps // self._global_batch()

    def _logs_update(self, update: int, log_interval: int) -> bool:
        """
        :param update: (int) the index of the update, from 1
        :param log_interval: (int) updates between two tables
        :return: (bool) whether this update writes the logger table (the first one always does)
        """
        return update == 1 or update % log_interval == 0

    @abstractmethod
    def _train_on_rollout(self, rollout: Any, update: int, writer: Any,
                          loop: Dict[str, Any]) -> Optional[Any]:
        """
        Learn from one rollout.

        :param rollout: (tuple) what the runner returned
        :param update: (int) the index of the update, from 1
        :param writer: (tf.summary.FileWriter) the tensorboard writer, or None
        :param loop: (dict) the variables of the loop
        :return: (Any) what :meth:`_record_update` logs
        """

    @abstractmethod
    def _record_update(self, update: int, stats: Any, loop: Dict[str, Any], clock: UpdateClock) -> None:
        """
        Record the rows of the logger table of one update (the loop then writes it).

        :param update: (int) the index of the update, from 1
        :param stats: (Any) what :meth:`_train_on_rollout` returned
        :param loop: (dict) the variables of the loop
        :param clock: (UpdateClock) the times of training
        """
