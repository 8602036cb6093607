"""
The NumPy copy of a feed-forward MLP actor-critic policy (see :mod:`stable_baselines.common.engine.numpy_forward`):
``step``, ``proba_step`` and ``value`` without a session call, from weights read out of the graph.
"""
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
from gymnasium import spaces

from stable_baselines.common.engine import numpy_forward as nf
from stable_baselines.common.distributions import (BernoulliProbabilityDistribution,
                                                   CategoricalProbabilityDistribution,
                                                   DiagGaussianProbabilityDistribution,
                                                   MultiCategoricalProbabilityDistribution)
from stable_baselines.common.policy_parts import public
from stable_baselines.common.policy_parts.extractors import mlp_layer_scopes
from stable_baselines.common.tf_compat import tf

# distribution class -> the name the forward pass dispatches on
_KINDS = ((CategoricalProbabilityDistribution, "categorical"), (DiagGaussianProbabilityDistribution, "gaussian"),
          (BernoulliProbabilityDistribution, "bernoulli"), (MultiCategoricalProbabilityDistribution, "multicategorical"))

# the weight matrix and bias of one dense layer
Layer = Tuple[np.ndarray, np.ndarray]
# placeholders until ``refresh`` reads the weights (``stale`` makes every method refresh first)
_NO_LAYER: Layer = (np.zeros((0, 0), dtype=np.float32), np.zeros((0,), dtype=np.float32))
_NO_STD = np.zeros((1, 0), dtype=np.float32)


@public
class NumpyActorCriticForward(object):
    """
    The inference of a feed-forward MLP actor-critic policy in NumPy (see
    :mod:`stable_baselines.common.engine.numpy_forward`), from a copy of the weights that is read from the
    graph (one session call) whenever :attr:`stale` is set. Every method returns None when it cannot
    answer exactly like the graph (unexpected input), and the policy then runs the graph.

    :param policy: (FeedForwardPolicy) the policy
    :param variables: ([tf.Variable]) the variables to read, in the order of the plan
    :param plan: (dict) layer structure (see :meth:`from_policy`)
    :param rng: (np.random.Generator) the generator of stochastic actions
    """

    def __init__(self, policy: Any, variables: list, plan: dict, rng: Optional[np.random.Generator]) -> None:
        self.policy = policy
        self.sess = policy.sess
        self.variables = variables
        self.plan = plan
        self.rng = rng if rng is not None else nf.make_rng(None)
        self.stale = True
        self.ob_space = policy.ob_space
        self.n_batch = policy.n_batch
        self.activation = plan["activation"]
        self.kind = plan["kind"]
        self._fetch: Optional[Callable[[], List[np.ndarray]]] = None
        self._box_obs = isinstance(policy.ob_space, spaces.Box)
        self._n_in = plan["n_in"]
        self._obs_shape = tuple(policy.ob_space.shape)
        # filled by refresh()
        self._shared: List[Layer] = []
        self._pi_layers: List[Layer] = []
        self._vf_layers: List[Layer] = []
        self._fused: Optional[List[Layer]] = None
        # the fused matrices split for the forward pass: the activated depths, and the last one
        self._fused_hidden: List[Layer] = []
        self._fused_last = _NO_LAYER
        # (start, end, shape) of each variable in the flat vector of set_flat_weights, made on first use
        self._flat_layout: Optional[List[Tuple[int, int, Tuple[int, ...]]]] = None
        self._pi = _NO_LAYER
        self._vf = _NO_LAYER
        self._n_param = plan["n_param"]
        self._logstd = _NO_STD
        self._std = _NO_STD
        # the policy branch for one Box observation (what ``predict`` runs), with preallocated buffers
        self._row: Optional[nf.SingleRowStack] = None
        self._row_possible = self._box_obs and self.n_batch in (None, 1) and self.kind != "multicategorical"

    @classmethod
    def from_policy(cls, policy: Any, rng: Optional[np.random.Generator] = None) -> Optional["NumpyActorCriticForward"]:
        """
        :param policy: (FeedForwardPolicy) a policy built with an MLP feature extraction
        :param rng: (np.random.Generator) the generator of stochastic actions
        :return: (NumpyActorCriticForward or None) None when the network or the spaces are not supported
        """
        spec = policy.numpy_spec
        if spec is None:
            return None
        activation = nf.numpy_activation(spec.act_fun)
        scopes = mlp_layer_scopes(spec.net_arch)
        kind = next((name for dist_class, name in _KINDS if isinstance(policy.proba_distribution, dist_class)), None)
        if activation is None or scopes is None or kind is None:
            return None
        if not isinstance(policy.ob_space, (spaces.Box, spaces.Discrete, spaces.MultiBinary, spaces.MultiDiscrete)):
            return None
        by_name = {var.name: var for var in policy.sess.graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)}
        shared_names, pi_names, vf_names = scopes
        layers: Dict[str, List[Any]] = {}
        for name in shared_names + pi_names + vf_names + ["pi", "vf"]:
            pair = [by_name.get("{}/{}/{}:0".format(spec.scope, name, part)) for part in ("w", "b")]
            if any(part is None for part in pair):
                return None
            layers[name] = pair
        variables = []
        for name in shared_names + pi_names + vf_names + ["pi", "vf"]:
            variables.extend(layers[name])
        if kind == "gaussian":
            logstd = by_name.get("{}/pi/logstd:0".format(spec.scope))
            if logstd is None:
                return None
            variables.append(logstd)
        probe_obs = nf.preprocess_observation(_probe_observation(policy.ob_space, 1), policy.ob_space)
        if probe_obs is None:
            return None
        plan = {"shared": shared_names, "pi": pi_names, "vf": vf_names, "kind": kind, "activation": activation,
                "n_in": probe_obs.shape[1], "n_param": int(layers["pi"][0].shape.as_list()[1]),
                "nvec": getattr(policy.pdtype, "n_vec", None)}
        forward = cls(policy, variables, plan, rng)
        try:
            if not forward.matches_graph():
                return None
        except Exception:  # pylint: disable=broad-except
            return None
        return forward

    def refresh(self) -> None:
        """Read the weights from the graph (one session call) and build the fused layer matrices."""
        if self._fetch is None:
            self._fetch = self.sess.make_callable(self.variables)
        self._use_weights(self._fetch())

    def set_flat_weights(self, flat: np.ndarray) -> None:
        """
        Take weights fetched with a training step instead of reading them (see ``FastPath.weights_after``).

        :param flat: (np.ndarray) the values of ``variables`` flattened and concatenated in order
        """
        layout = self._flat_layout
        if layout is None:
            layout, start = [], 0
            for var in self.variables:
                shape = tuple(var.shape.as_list())
                end = start + int(np.prod(shape, dtype=np.int64))
                layout.append((start, end, shape))
                start = end
            self._flat_layout = layout
        self._use_weights([flat[start:end].reshape(shape) for start, end, shape in layout])

    def _use_weights(self, fetched: List[np.ndarray]) -> None:
        """Build the layers (and the fused matrices) from the values of ``variables``, in order."""
        values = [np.ascontiguousarray(value, dtype=np.float32) for value in fetched]
        plan = self.plan
        pos = 0

        def take() -> Layer:
            nonlocal pos
            pair = (values[pos], values[pos + 1])
            pos += 2
            return pair

        self._shared = [take() for _ in plan["shared"]]
        pi_layers = [take() for _ in plan["pi"]]
        vf_layers = [take() for _ in plan["vf"]]
        self._pi = take()
        self._vf = take()
        self._pi_layers, self._vf_layers = pi_layers, vf_layers
        self._row = None  # rebuilt from these weights when ``act`` next needs it
        if self.kind == "gaussian":
            self._logstd = values[pos].reshape(1, -1)
            self._std = np.exp(self._logstd)
        # Fuse the policy and value branches into one matrix per depth (block-diagonal after the first),
        # so that a step is one matmul per layer.
        self._fused = None
        if len(pi_layers) == len(vf_layers):
            fused = []
            for depth, ((w_pi, b_pi), (w_vf, b_vf)) in enumerate(zip(pi_layers + [self._pi], vf_layers + [self._vf])):
                if depth == 0:
                    weight = np.concatenate([w_pi, w_vf], axis=1)
                else:
                    weight = np.zeros((w_pi.shape[0] + w_vf.shape[0], w_pi.shape[1] + w_vf.shape[1]),
                                      dtype=np.float32)
                    weight[:w_pi.shape[0], :w_pi.shape[1]] = w_pi
                    weight[w_pi.shape[0]:, w_pi.shape[1]:] = w_vf
                fused.append((weight, np.concatenate([b_pi, b_vf])))
            self._fused = fused
            self._fused_hidden, self._fused_last = fused[:-1], fused[-1]
        self.stale = False

    def _inputs(self, obs: Any) -> Optional[np.ndarray]:
        if self.stale:
            self.refresh()
        if self._box_obs:
            obs = np.asarray(obs)
            if obs.shape[1:] != self._obs_shape or obs.dtype.kind not in "fiub":
                return None
            x = obs.astype(np.float32, copy=False).reshape(obs.shape[0], self._n_in)
        else:
            x = nf.preprocess_observation(obs, self.ob_space)
            if x is None or x.ndim != 2 or x.shape[1] != self._n_in:
                return None
        if self.n_batch is not None and x.shape[0] != self.n_batch:
            return None
        return x

    def _forward(self, x: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """:return: (np.ndarray, np.ndarray) distribution parameters (batch, n_param), values (batch,)"""
        activation = self.activation
        for weight, bias in self._shared:
            x = activation(_affine(x, weight, bias))
        if self._fused is not None:
            for weight, bias in self._fused_hidden:
                x = activation(_affine(x, weight, bias))
            x = _affine(x, *self._fused_last)
            return x[:, :self._n_param], x[:, self._n_param]
        latent_pi = latent_vf = x
        for weight, bias in self._pi_layers:
            latent_pi = activation(_affine(latent_pi, weight, bias))
        for weight, bias in self._vf_layers:
            latent_vf = activation(_affine(latent_vf, weight, bias))
        return _affine(latent_pi, *self._pi), _affine(latent_vf, *self._vf)[:, 0]

    def step(self, obs: Any, deterministic: bool = False) -> Optional[tuple]:
        """
        :return: ((np.ndarray, np.ndarray, None, np.ndarray) or None) actions, values, states, neglogp
        """
        x = self._inputs(obs)
        if x is None:
            return None
        param, value = self._forward(x)
        kind = self.kind
        neglogp: Any
        if kind == "categorical":
            action, neglogp = self._categorical_step(param, deterministic)
        elif kind == "gaussian":
            if deterministic:
                action = param
            else:
                action = nf.gaussian_sample(param, self._std, self.rng)
            neglogp = nf.diag_gaussian_neglogp(param, self._logstd, action)
        elif kind == "bernoulli":
            probs = nf.sigmoid(param)
            if deterministic:
                action = np.round(probs).astype(np.float32)
            else:
                action = nf.bernoulli_sample(param, self.rng, probs)
            neglogp = nf.bernoulli_neglogp(param, action)
        else:  # multicategorical
            actions, neglogp = [], 0
            start = 0
            for n_cat in self.plan["nvec"]:
                logits = param[:, start:start + n_cat]
                start += n_cat
                logp = nf.log_softmax(logits)
                if deterministic:
                    act = logits.argmax(axis=-1)
                else:
                    act = nf.categorical_sample(logits, self.rng)
                actions.append(act)
                neglogp = neglogp - logp[np.arange(logp.shape[0]), act]
            action = np.stack(actions, axis=-1)
        return action, value, None, np.asarray(neglogp, dtype=np.float32)

    def _categorical_step(self, logits: np.ndarray, deterministic: bool) -> Tuple[np.ndarray, np.ndarray]:
        """
        :param logits: (np.ndarray) float32, shape (batch, n)
        :param deterministic: (bool) the most likely actions instead of drawn ones
        :return: (np.ndarray, np.ndarray) the actions and their negative log-likelihoods (float32), the numbers of
            ``-log_softmax(logits)`` at the actions (the same operations, on the chosen entries only)
        """
        maximum = np.maximum.reduce(logits, axis=-1, keepdims=True)
        shifted = np.subtract(logits, maximum)
        log_partition = np.log(np.add.reduce(np.exp(shifted), axis=-1, keepdims=True))
        if deterministic:
            action = logits.argmax(axis=-1)
        else:
            action = nf.categorical_sample(logits, self.rng)
        neglogp = np.subtract(shifted[np.arange(len(action)), action], log_partition[:, 0])
        return action, np.negative(neglogp, out=neglogp)

    @property
    def obs_shape(self) -> Tuple[int, ...]:
        """(tuple) the shape of one observation"""
        return self._obs_shape

    def act(self, obs: np.ndarray, deterministic: bool = False) -> Optional[np.ndarray]:
        """
        The actions only (the policy branch alone): what ``predict`` needs.

        :param obs: (np.ndarray) a batch of observations
        :param deterministic: (bool) the mode of the distribution instead of a sample
        :return: (np.ndarray or None) the actions, None if the graph must answer
        """
        kind = self.kind
        if kind == "multicategorical":
            out = self.step(obs, deterministic)
            return None if out is None else out[0]
        if self.stale:
            self.refresh()
        param = None
        if self._row_possible and type(obs) is np.ndarray and obs.shape[:1] == (1,) \
                and obs.shape[1:] == self._obs_shape and obs.dtype.kind in "fiub":  # pylint: disable=unidiomatic-typecheck
            row = self._row
            if row is None:
                row = self._row = nf.SingleRowStack(self._shared + self._pi_layers + [self._pi], self.activation)
            param = row(obs)  # a buffer the next call overwrites: nothing below returns it
        if param is None:
            x = self._inputs(obs)
            if x is None:
                return None
            activation = self.activation
            for weight, bias in self._shared + self._pi_layers:
                x = activation(_affine(x, weight, bias))
            param = _affine(x, *self._pi)
        if kind == "categorical":
            if deterministic:
                return param.argmax(axis=-1)
            if param.shape[0] == 1 and param.shape[1] <= 16:
                return np.array([nf.categorical_sample_row(param, self.rng)], dtype=np.int64)
            return nf.categorical_sample(param, self.rng)
        if kind == "gaussian":
            if deterministic:
                return param.copy()
            return nf.gaussian_sample(param, self._std, self.rng)
        probs = nf.sigmoid(param)
        if deterministic:
            return np.round(probs).astype(np.float32)
        return nf.bernoulli_sample(param, self.rng, probs)

    def proba(self, obs: Any) -> Any:
        """:return: the ``policy_proba`` of the graph, or None"""
        x = self._inputs(obs)
        if x is None:
            return None
        param, _ = self._forward(x)
        kind = self.kind
        if kind == "categorical":
            return nf.softmax(param)
        if kind == "gaussian":
            return [param, np.broadcast_to(self._std, param.shape).copy()]
        if kind == "bernoulli":
            return nf.sigmoid(param)
        probas, start = [], 0
        for n_cat in self.plan["nvec"]:
            probas.append(nf.softmax(param[:, start:start + n_cat]))
            start += n_cat
        return probas

    def value(self, obs: Any) -> Optional[np.ndarray]:
        """:return: (np.ndarray or None) the values, shape (batch,)"""
        x = self._inputs(obs)
        if x is None:
            return None
        return self._forward(x)[1]

    def matches_graph(self, n_rows: int = 5, rtol: float = 1e-4, atol: float = 1e-5) -> bool:
        """
        Compare the NumPy forward with the graph on random observations (deterministic actions,
        values, probabilities and neg-log-likelihoods).

        :return: (bool) whether they agree to float32 precision
        """
        policy = self.policy
        n_rows = n_rows if self.n_batch is None else self.n_batch
        obs = _probe_observation(policy.ob_space, n_rows)
        graph_out = policy.sess.run([policy.deterministic_action, policy.value_flat, policy.policy_proba],
                                    {policy.obs_ph: obs})
        numpy_step = self.step(obs, deterministic=True)
        numpy_proba = self.proba(obs)
        if numpy_step is None or numpy_proba is None:
            return False
        if numpy_step[0].shape != graph_out[0].shape or numpy_step[0].dtype != graph_out[0].dtype:
            return False
        if not np.allclose(numpy_step[1], graph_out[1], rtol=rtol, atol=atol):
            return False
        graph_probas = graph_out[2] if isinstance(graph_out[2], list) else [graph_out[2]]
        numpy_probas = numpy_proba if isinstance(numpy_proba, list) else [numpy_proba]
        if len(graph_probas) != len(numpy_probas):
            return False
        for left, right in zip(graph_probas, numpy_probas):
            if np.shape(left) != np.shape(right) or not np.allclose(left, right, rtol=rtol, atol=atol):
                return False
        graph_neglogp = policy.sess.run(policy.neglogp, {policy.obs_ph: obs, policy.action: numpy_step[0]})
        return bool(np.allclose(graph_neglogp, numpy_step[3], rtol=rtol, atol=1e-4))


def _affine(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """:return: (np.ndarray) ``x @ weight + bias``, the bias added in place"""
    out = np.matmul(x, weight)
    return np.add(out, bias, out=out)


def _probe_observation(ob_space: spaces.Space, n_rows: int) -> np.ndarray:
    """
    Random observations of a space from a private generator (no global or space RNG is touched).

    :param ob_space: (gymnasium.spaces.Space)
    :param n_rows: (int)
    :return: (np.ndarray) a batch of ``n_rows`` observations
    """
    rng = np.random.RandomState(1234)
    if isinstance(ob_space, spaces.Box):
        low = np.broadcast_to(np.asarray(ob_space.low, dtype=np.float64), ob_space.shape)
        high = np.broadcast_to(np.asarray(ob_space.high, dtype=np.float64), ob_space.shape)
        low = np.clip(np.where(np.isfinite(low), low, -2.0), -2.0, 2.0)
        high = np.maximum(np.clip(np.where(np.isfinite(high), high, 2.0), -2.0, 2.0), low)
        sample = rng.uniform(size=(n_rows,) + tuple(ob_space.shape)) * (high - low) + low
        return sample.astype(ob_space.dtype)
    if isinstance(ob_space, spaces.Discrete):
        return (rng.randint(0, int(ob_space.n), size=(n_rows,)) + int(getattr(ob_space, "start", 0) or 0))
    if isinstance(ob_space, spaces.MultiBinary):
        return rng.randint(0, 2, size=(n_rows,) + tuple(np.atleast_1d(ob_space.n))).astype(np.float32)
    if isinstance(ob_space, spaces.MultiDiscrete):
        nvec = np.asarray(ob_space.nvec).reshape(-1)
        start = np.asarray(getattr(ob_space, "start", np.zeros_like(nvec))).reshape(-1)
        return (rng.randint(0, 1 << 30, size=(n_rows, nvec.shape[0])) % nvec + start).astype(np.int64)
    raise NotImplementedError("no probe observation for {}".format(ob_space))
