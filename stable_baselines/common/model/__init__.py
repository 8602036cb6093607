"""
The machinery every algorithm stands on, one concern per module (``stable_baselines.common.base_class`` is the
public path of its classes):

- :mod:`.base`: :class:`BaseRLModel` (environment, seeding, graph and session, the frame of ``learn``,
  ``pretrain``); :mod:`.model_files`: what it inherits to store and carry a model (parameters,
  ``save``/``load``, ``export``);
- :mod:`.on_policy`: :class:`ActorCriticRLModel` and :class:`OnPolicyRLModel` (collect, train, log: the loop of
  A2C, ACER, ACKTR, PPO2); :mod:`.segments`: what PPO1, TRPO, GAIL share;
  :mod:`.off_policy`: :class:`OffPolicyRLModel`;
- :mod:`.environment`: fitting an env to a model; :mod:`.observations`: the input of ``predict``;
  :mod:`.probabilities`: ``action_probability`` of given actions;
- :mod:`.parameters`: assigning parameter values; :mod:`.loading`: ``load``; :mod:`.pretraining`: behaviour
  cloning; :mod:`.context`: verbosity and tensorboard writer of a ``learn`` call;
  :mod:`.arguments`: argument checks shared by the algorithms.
- :mod:`.rollouts`, :mod:`.env_values`: collecting rollouts (the runner, the step loop, the returns), checking what the
  env hands over; :mod:`.session_call`, :mod:`.summaries`: a training step's session call and its tensorboard
  summaries; :mod:`.fast_path`: the NumPy copy of a policy behind ``predict``; :mod:`.data_parallel`:
  training over MPI ranks.
"""
