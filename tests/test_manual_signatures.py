"""Public signatures (parameter names, order, kinds and literal defaults) against the original manual.

Every class / function header of the manual copies in ``tests/data/manual/`` (and every method header that
follows a class header in the same section: ``learn``, ``predict``, ``save``, ...) is parsed by
``tests/manual_spec.py``. One test case is generated per header whose target is importable from our
package; headers of modules that are not implemented yet generate no case but are listed by
``test_manual_coverage`` (which also guarantees that a minimum set of headers was actually checked).

Only imports are needed: no model is built or trained.
"""
import ast
import importlib
import inspect
from collections import Counter, OrderedDict

import pytest

from manual_spec import NOT_LITERAL, Param, parse_manual

PREFIX = "stable_baselines."

# --------------------------------------------------------------------------------------------------
# Known defects of the manual text (PDF conversion / OCR), applied before comparing.
# (target, manual parameter name) -> real parameter name
PARAM_TYPOS = {
    # OCR typo in the A2C constructor header; its own parameter list and the code say policy_kwargs
    ("stable_baselines.a2c.A2C", "policy_kws"): "policy_kwargs",
    # the same OCR typo in the PPO1 header of the full manual; the PPO1 page (002_*) says policy_kwargs
    ("stable_baselines.ppo1.PPO1", "policy_kws"): "policy_kwargs",
    # the ACER header lost the leading '_' of _init_setup_model and the final 's' of policy_kwargs
    ("stable_baselines.acer.ACER", "init_setup_model"): "_init_setup_model",
    ("stable_baselines.acer.ACER", "policy_kwarg"): "policy_kwargs",
    # the ACKTR header is cut off inside "policy_kwargs" (the rest of the line is lost)
    ("stable_baselines.acktr.ACKTR", "policy_kwarg"): "policy_kwargs",
    # "vf_stepsizes" in the manual's TRPO header; its parameter list and the TRPO page say vf_stepsize
    ("stable_baselines.trpo_mpi.TRPO", "vf_stepsizes"): "vf_stepsize",
    # the manual's TRPO and GAIL method headers say log=False; the TRPO/GAIL pages (000_*, 002_*) and every
    # other model say logp=False
    ("stable_baselines.trpo_mpi.TRPO.action_probability", "log"): "logp",
    ("stable_baselines.gail.GAIL.action_probability", "log"): "logp",
    # the BaseRLModel header lost the final 's' at a line break ("policy_kwarg=None"); the code uses policy_kwargs
    ("stable_baselines.common.base_class.BaseRLModel", "policy_kwarg"): "policy_kwargs",
    # the header is cut off after "n_v," by the conversion (closing parenthesis missing); the argument is n_vec
    ("stable_baselines.common.distributions.MultiCategoricalProbabilityDistributionType", "n_v"): "n_vec",
}
# method name typos: OCR reads the KL-divergence method "kl" as "k1" in the distribution classes
METHOD_TYPOS = {"k1": "kl"}
# (target, parameter) -> literal source of the default, where the rendering broke the literal
DEFAULT_TYPOS = {
    # the empty string '' was turned into a single typographic quote: new_scope=")
    ("stable_baselines.common.tf_util.outer_scope_getter", "new_scope"): "''",
}
# manual headers naming a package-level re-export: implementation status is that of the defining module
ALIASES = {
    "stable_baselines.TRPO": "stable_baselines.trpo_mpi.TRPO",
}

# --------------------------------------------------------------------------------------------------
# Extra trailing keyword parameters of ours that the manual lacks: allowed only when listed here.
# (target, parameter) -> reason
ALLOWED_EXTRAS = {
    ("stable_baselines.a2c.A2C.learn", "progress_bar"): "documented addition: learn(..., progress_bar=False)",
    ("stable_baselines.ppo2.PPO2.learn", "progress_bar"): "documented addition: learn(..., progress_bar=False)",
    ("stable_baselines.common.base_class.BaseRLModel.learn", "progress_bar"):
        "documented addition: learn(..., progress_bar=False)",
    ("stable_baselines.results_plotter.main", "args"):
        "documented addition: main(args=None) takes the command line as a list (None: sys.argv), so that it can "
        "be called from Python and tested; main() works as in the manual",
    ("stable_baselines.common.vec_env.VecNormalize", "norm_obs_keys"):
        "documented addition (issue 22, the successor's name): the keys of a Dict observation space to normalize",
}
ALLOWED_EXTRAS.update({
    ("stable_baselines.TRPO", name): "the TRPO page (003_*) shows an abbreviated header that stops at verbose=0; "
                                     "the full header (000_* page, and the manual) lists this parameter"
    for name in ("tensorboard_log", "_init_setup_model", "policy_kwargs", "full_tensorboard_log", "seed",
                 "n_cpu_tf_sess")})
# exact resume (issue 21): save(..., include_training_state=False) on every model, and the checkpoints that use it
ALLOWED_EXTRAS.update({
    ("stable_baselines.{}.save".format(model), "include_training_state"):
        "documented addition: save(path, cloudpickle=False, include_training_state=False) stores the training state"
    for model in ("common.base_class.BaseRLModel", "a2c.A2C", "acer.ACER", "acktr.ACKTR", "ddpg.DDPG", "deepq.DQN",
                  "gail.GAIL", "her.HER", "ppo1.PPO1", "ppo2.PPO2", "sac.SAC", "td3.TD3", "trpo_mpi.TRPO")})
ALLOWED_EXTRAS[("stable_baselines.common.env_checker.check_env", "legacy_api_warnings")] = \
    "documented addition (docs/common/env_checker.rst): warn where the env follows the legacy gym API"
ALLOWED_EXTRAS[("stable_baselines.common.callbacks.CheckpointCallback", "save_training_state")] = \
    "documented addition: checkpoints written with save(path, include_training_state=True)"
# every model's learn() takes the documented addition progress_bar=False as its last argument
LEARN_ADDITION = "progress_bar"
# predict() and action_probability() of the models with discrete actions take the documented addition
# action_masks=None (invalid-action masking, docs/guide/action_masks.rst) as their last argument
MASKS_ADDITION = "action_masks"

# Headers where the manual contradicts itself: (target) -> what the manual's own text says instead.
# The signature is checked against that text; the header line itself is wrong.
MANUAL_CONTRADICTIONS = {
    "stable_baselines.common.distributions.CategoricalProbabilityDistributionType.proba_distribution_from_latent":
        ("the header shows (pi_latent_vector, vf_latent_vector, init_bias=0.0) but the parameter list under it "
         "documents init_scale too, as every other distribution type has",
         "pi_latent_vector, vf_latent_vector, init_scale=1.0, init_bias=0.0"),
}

# headers that must have been checked (guards against a parser/import regression checking nothing)
REQUIRED_CHECKED = [
    "a2c.A2C", "a2c.A2C.learn", "a2c.A2C.predict", "a2c.A2C.save", "a2c.A2C.load",
    "ppo2.PPO2", "ppo2.PPO2.learn", "ppo2.PPO2.predict", "ppo2.PPO2.save", "ppo2.PPO2.load",
    "common.base_class.BaseRLModel", "common.base_class.BaseRLModel.learn",
    "common.vec_env.VecEnv", "common.vec_env.DummyVecEnv", "common.vec_env.SubprocVecEnv",
    "common.vec_env.VecNormalize", "common.vec_env.VecFrameStack", "common.vec_env.VecCheckNan",
    "common.vec_env.VecVideoRecorder",
    "common.callbacks.BaseCallback", "common.callbacks.CallbackList", "common.callbacks.CheckpointCallback",
    "common.callbacks.ConvertCallback", "common.callbacks.EvalCallback", "common.callbacks.EventCallback",
    "common.callbacks.EveryNTimesteps", "common.callbacks.StopTrainingOnRewardThreshold",
    "bench.monitor.Monitor", "bench.monitor.load_results", "bench.monitor.get_monitor_files",
    "common.evaluation.evaluate_policy", "common.env_checker.check_env",
    "common.policies.BasePolicy", "common.policies.ActorCriticPolicy", "common.policies.FeedForwardPolicy",
    "common.policies.LstmPolicy", "common.policies.MlpPolicy", "common.policies.CnnPolicy",
    "common.policies.MlpLstmPolicy", "common.policies.CnnLstmPolicy",
    "common.distributions.CategoricalProbabilityDistribution",
    "common.distributions.DiagGaussianProbabilityDistributionType",
    "common.distributions.make_proba_dist_type",
    "common.schedules.LinearSchedule", "common.schedules.PiecewiseSchedule", "common.schedules.ConstantSchedule",
    "common.tf_util.make_session", "common.tf_util.function", "common.tf_util.batch_to_seq",
    "results_plotter.plot_results", "results_plotter.ts2xy",
    "acer.ACER", "acktr.ACKTR", "ddpg.DDPG", "her.HER", "ppo1.PPO1", "trpo_mpi.TRPO", "gail.GAIL",
    "deepq.DQN", "sac.SAC", "td3.TD3", "common.cmd_util.make_vec_env", "common.cmd_util.make_atari_env",
    "gail.ExpertDataset", "gail.generate_expert_traj",
]
MIN_PARSED = 400  # the manual copies hold ~500 headers (classes, functions and their methods)


class _NotImplementedModule(Exception):
    pass


def _import_module(name):
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise _NotImplementedModule(name)
        raise  # our module exists but one of its dependencies is missing: a real error


def _resolve(target):
    """Return the object named by ``target``; raise _NotImplementedModule when its module does not exist.

    Missing attributes of existing modules / classes raise AttributeError (reported by the test case).
    """
    if target in ALIASES:
        _resolve(ALIASES[target])  # raises _NotImplementedModule when the defining module does not exist
    parts = target.split(".")
    obj = _import_module(parts[0])
    path = parts[0]
    for seg in parts[1:]:
        if hasattr(obj, seg):
            obj = getattr(obj, seg)
        elif inspect.ismodule(obj):
            try:
                obj = _import_module(path + "." + seg)
            except _NotImplementedModule:
                # a missing name in a plain module, or a missing class in a package, is a missing attribute;
                # a missing lower-case name in a package is a sub-module not implemented yet
                if seg[:1].isupper() or not hasattr(obj, "__path__"):
                    raise AttributeError("module %s has no attribute %s" % (path, seg))
                raise
        else:
            raise AttributeError("%s has no attribute %s" % (path, seg))
        path = path + "." + seg
    return obj


def _fix_header(header):
    """Apply the typo tables; returns (target, params)."""
    target = header.target
    if header.is_method:
        owner, meth = target.rsplit(".", 1)
        target = owner + "." + METHOD_TYPOS.get(meth, meth)
    params = None
    if header.params is not None:
        params = []
        for param in header.params:
            if param.name == "self" or (header.is_method and param.name == "cls"):
                continue
            fixed = Param(PARAM_TYPOS.get((header.target, param.name), param.name), param.kind, param.default,
                          param.has_default, param.raw_default)
            literal = DEFAULT_TYPOS.get((header.target, param.name))
            if literal is not None:
                fixed.default = ast.literal_eval(literal)
            params.append(fixed)
    return target, params


def _short(target):
    return target[len(PREFIX):] if target.startswith(PREFIX) else target


def _collect_cases():
    cases = OrderedDict()
    not_implemented = Counter()
    parsed = 0
    for header in parse_manual():
        parsed += 1
        target, params = _fix_header(header)
        try:
            _resolve(header.owner if header.is_method else target)
        except _NotImplementedModule as exc:
            not_implemented[str(exc)] += 1
            continue
        except AttributeError:
            pass  # the case itself reports the missing attribute
        key = (target, None if params is None else tuple((p.name, p.kind, p.has_default, repr(p.default))
                                                         for p in params))
        if key in cases:
            continue  # the same header repeated (e.g. TRPO in the HTML and the PDF copies)
        cases[key] = (target, params, header)
    ids = Counter(_short(target) for target, _, _ in cases.values())
    out = []
    for target, params, header in cases.values():
        case_id = _short(target)
        if ids[case_id] > 1:
            case_id = "%s@%s" % (case_id, header.source.split("_", 1)[0] + ":" + header.source.rsplit(":", 1)[1])
        out.append(pytest.param(target, params, header, id=case_id))
    return out, parsed, not_implemented


CASES, N_PARSED, NOT_IMPLEMENTED = _collect_cases()

_KIND = {
    inspect.Parameter.POSITIONAL_ONLY: "pos",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "pos",
    inspect.Parameter.KEYWORD_ONLY: "kwonly",
    inspect.Parameter.VAR_POSITIONAL: "varpos",
    inspect.Parameter.VAR_KEYWORD: "varkw",
}


def _actual_params(target, is_method):
    obj = _resolve(target)
    if is_method:
        owner = _resolve(target.rsplit(".", 1)[0])
        raw = inspect.getattr_static(owner, target.rsplit(".", 1)[1])
        if isinstance(raw, property):
            raise AssertionError("%s is a property in our package, the manual documents a method" % target)
    params = list(inspect.signature(obj).parameters.values())
    if is_method and params and params[0].name in ("self",):
        params = params[1:]
    return params


def _fmt_expected(params):
    out = []
    for p in params:
        star = {"varpos": "*", "varkw": "**"}.get(p.kind, "")
        text = star + p.name
        if p.has_default:
            text += "=" + (p.raw_default if p.default is NOT_LITERAL else repr(p.default))
        out.append(text)
    if any(p.kind == "kwonly" for p in params) and not any(p.kind == "varpos" for p in params):
        first = next(i for i, p in enumerate(params) if p.kind == "kwonly")
        out.insert(first, "*")
    return "(" + ", ".join(out) + ")"


def compare(target, expected, actual, unterminated=False):
    """Differences between the manual's parameter list and ours (empty list: identical)."""
    problems = []
    exp_named = [p for p in expected if p.kind in ("pos", "kwonly")]
    act_named = [p for p in actual if _KIND[p.kind] in ("pos", "kwonly")]
    exp_names = [p.name for p in exp_named]
    act_names = [p.name for p in act_named]

    if act_names[:len(exp_names)] != exp_names:
        problems.append("parameter names/order: manual %s, ours %s" % (exp_names, act_names))
    else:
        for exp, act in zip(exp_named, act_named):
            if exp.kind != _KIND[act.kind]:
                problems.append("%s: manual kind %s, ours %s" % (exp.name, exp.kind, _KIND[act.kind]))
            act_has_default = act.default is not inspect.Parameter.empty
            if unterminated and exp is exp_named[-1] and not exp.has_default:
                continue  # the header is cut off inside its last parameter: its default is lost
            if exp.has_default != act_has_default:
                problems.append("%s: manual %s, ours %s" % (
                    exp.name, "default %s" % exp.raw_default if exp.has_default else "no default",
                    "default %r" % (act.default,) if act_has_default else "no default"))
            elif exp.has_default and exp.default is not NOT_LITERAL:
                if not (type(exp.default) is type(act.default) and exp.default == act.default):
                    problems.append("%s: manual default %r, ours %r" % (exp.name, exp.default, act.default))
        for act in act_named[len(exp_names):]:
            reason = ALLOWED_EXTRAS.get((target, act.name))
            if reason is None and target.endswith(".learn") and act.name == LEARN_ADDITION \
                    and act is act_named[-1] and act.default is False:
                reason = "documented addition: learn(..., progress_bar=False)"
            if reason is None and target.endswith((".predict", ".action_probability")) \
                    and act.name == MASKS_ADDITION and act is act_named[-1] and act.default is None:
                reason = "documented addition: predict / action_probability(..., action_masks=None)"
            if reason is None and unterminated:
                continue  # the manual's header is cut off: it cannot tell about trailing parameters
            if reason is None:
                problems.append("extra parameter %s (not in the manual, not allow-listed)" % act.name)
            elif act.default is inspect.Parameter.empty:
                problems.append("allow-listed extra parameter %s has no default" % act.name)

    for kind, label in (("varpos", "*args"), ("varkw", "**kwargs")):
        exp_has = any(p.kind == kind for p in expected)
        act_has = any(_KIND[p.kind] == kind for p in actual)
        if exp_has != act_has:
            problems.append("manual %s %s, ours %s" % ("has" if exp_has else "has no", label,
                                                       "has" if act_has else "has not"))
    return problems


@pytest.mark.parametrize("target, expected, header", CASES)
def test_manual_signature(target, expected, header):
    try:
        actual = _actual_params(target, header.is_method)
    except AttributeError as exc:
        pytest.fail("%s (manual %s) is missing from our package: %s" % (target, header.source, exc))
    if expected is None:
        return  # header without an argument list: existence is all the manual documents
    if target in MANUAL_CONTRADICTIONS:
        documented = MANUAL_CONTRADICTIONS[target][1]
        # names, order and defaults as the manual's text says; type annotations are not part of the manual
        signature = inspect.signature(_resolve(target))
        bare = signature.replace(parameters=[param.replace(annotation=inspect.Parameter.empty)
                                             for param in signature.parameters.values()],
                                 return_annotation=inspect.Signature.empty)
        assert str(bare).strip("()").replace("self, ", "") == documented
        return
    problems = compare(target, expected, actual, header.unterminated)
    assert not problems, "%s (manual %s)\n  manual: %s\n  ours:   %s\n  - %s" % (
        target, header.source, _fmt_expected(expected), inspect.signature(_resolve(target)), "\n  - ".join(problems))


def test_manual_coverage():
    checked = {_short(param.values[0]) for param in CASES}
    lines = ["manual headers parsed: %d, checked: %d (after removing repeats), not implemented yet: %d"
             % (N_PARSED, len(CASES), sum(NOT_IMPLEMENTED.values()))]
    lines += ["  not implemented yet: %s (%d headers)" % (mod, n) for mod, n in sorted(NOT_IMPLEMENTED.items())]
    print("\n".join(lines))
    assert N_PARSED >= MIN_PARSED, "the manual parser found only %d headers" % N_PARSED
    missing = [name for name in REQUIRED_CHECKED if name not in checked]
    assert not missing, "these manual headers were not checked: %s" % missing


def test_typo_tables_are_used():
    """Every entry of the typo / allow-list tables must match a parsed header (no stale entries)."""
    headers = parse_manual()
    pairs = {(h.target, p.name) for h in headers if h.params for p in h.params}
    for key in list(PARAM_TYPOS) + list(DEFAULT_TYPOS):
        assert key in pairs, "stale manual typo entry: %s" % (key,)
    method_names = {h.target.rsplit(".", 1)[1] for h in headers if h.is_method}
    for name in METHOD_TYPOS:
        assert name in method_names, "stale method typo entry: %s" % name
    targets = {_fix_header(h)[0] for h in headers}
    for target, _ in ALLOWED_EXTRAS:
        assert target in targets, "allow-list entry for a header the manual does not have: %s" % target


def test_parser_handles_conversion_artefacts(tmp_path):
    """The manual parser on synthetic headers showing each artefact of the PDF/HTML conversions."""
    from manual_spec import parse_file

    text = "\n".join([
        "```",
        "class stable_baselines.common.vec_env.VecVideoRecorder (venv, video_folder,  ",
        "                                 name_prefix='rl-video', re-",
        "                                 set_keywords=(), act_fun=<MagicMock",
        "                                 id='1406'>, *, kw_only=1e-05)",
        "```",
        "**learn**(*total\\_timesteps*, *log\\_interval*=100, \\*\\*kwargs) [source]",
        "**Returns** (bool) the result",
        "#### `env_method(method_name, *method_args, indices=None)`",
        "## 1.2.3 Next section",
        "**reset** ()",
        "stable_baselines.common.evaluation.evaluate_policy(model: BaseRLModel, env:",
        "Union[gym.core.Env, stable_baselines.common.vec_env.base_vec_env.VecEnv],",
        "n_eval_episodes: int = 10) → Union[Tuple[float, float], Tuple[List[float], List[int]]]",
        "**class** stable\\_baselines.common.callbacks.**CallbackList** (*callbacks:*",
        "",
        "*List[stable\\_baselines.common.callbacks.BaseCallback]*",
        "",
        "Class for chaining callbacks.",
    ])
    path = tmp_path / "manual.txt"
    path.write_text(text, encoding="utf-8")
    headers = {h.target: h for h in parse_file(str(path))}
    assert list(headers) == [
        "stable_baselines.common.vec_env.VecVideoRecorder",
        "stable_baselines.common.vec_env.VecVideoRecorder.learn",
        "stable_baselines.common.vec_env.VecVideoRecorder.env_method",
        "stable_baselines.common.evaluation.evaluate_policy",
        "stable_baselines.common.callbacks.CallbackList",
    ]  # "**reset** ()" follows a numbered heading: no class to attribute it to
    rec = headers["stable_baselines.common.vec_env.VecVideoRecorder"].params
    assert [(p.name, p.kind) for p in rec] == [
        ("venv", "pos"), ("video_folder", "pos"), ("name_prefix", "pos"), ("reset_keywords", "pos"),
        ("act_fun", "pos"), ("kw_only", "kwonly")]
    assert rec[2].default == "rl-video" and rec[3].default == () and rec[4].default is NOT_LITERAL
    assert rec[5].default == 1e-05
    learn = headers["stable_baselines.common.vec_env.VecVideoRecorder.learn"].params
    assert [(p.name, p.kind, p.default) for p in learn] == [
        ("total_timesteps", "pos", None), ("log_interval", "pos", 100), ("kwargs", "varkw", None)]
    env_method = headers["stable_baselines.common.vec_env.VecVideoRecorder.env_method"].params
    assert [(p.name, p.kind) for p in env_method] == [
        ("method_name", "pos"), ("method_args", "varpos"), ("indices", "kwonly")]
    evaluate = headers["stable_baselines.common.evaluation.evaluate_policy"].params
    assert [(p.name, p.default) for p in evaluate] == [("model", None), ("env", None), ("n_eval_episodes", 10)]
    callback_list = headers["stable_baselines.common.callbacks.CallbackList"]
    assert callback_list.unterminated and [p.name for p in callback_list.params] == ["callbacks"]


def test_compare_reports_differences():
    """The comparison itself flags renamed / reordered / re-defaulted / extra / kind-changed parameters."""
    from manual_spec import parse_params

    def ours(a, b=1, *, c=None, extra=0, **kwargs):
        pass

    actual = list(inspect.signature(ours).parameters.values())
    assert compare("t", parse_params("a, b=1, *, c=None, **kw"), actual) == [
        "extra parameter extra (not in the manual, not allow-listed)"]
    assert compare("t", parse_params("a, b=1, *, c=None, extra=0, **kw"), actual) == []
    assert compare("t", parse_params("a, b=1.0, *, c=None, extra=0, **kw"), actual) == [
        "b: manual default 1.0, ours 1"]
    assert compare("t", parse_params("a, b, *, c=None, extra=0, **kw"), actual) == ["b: manual no default, ours default 1"]
    assert compare("t", parse_params("a, b=<function f>, c=None, extra=0"), actual) == [
        "c: manual kind pos, ours kwonly", "extra: manual kind pos, ours kwonly", "manual has no **kwargs, ours has"]
    assert compare("t", parse_params("b=1, a, *, c=None, extra=0, **kw"), actual)[0].startswith("parameter names/order")
