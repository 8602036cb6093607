import glob
import io
import json
import os

import numpy as np
import pytest

from stable_baselines import logger
from stable_baselines.common.tf_compat import tf
from stable_baselines.logger import (CSVOutputFormat, DEBUG, DISABLED, HumanOutputFormat, INFO, JSONOutputFormat,
                                     Logger, ScopedConfigure, TensorBoardOutputFormat, WARN, make_output_format)


@pytest.fixture(autouse=True)
def restore_logger(monkeypatch):
    """Every test starts with the default logger and no logger environment variables."""
    monkeypatch.delenv("OPENAI_LOGDIR", raising=False)
    monkeypatch.delenv("OPENAI_LOG_FORMAT", raising=False)
    previous = Logger.CURRENT
    Logger.CURRENT = Logger.DEFAULT
    Logger.DEFAULT.set_level(INFO)
    Logger.DEFAULT.name2val.clear()
    Logger.DEFAULT.name2cnt.clear()
    yield
    if Logger.CURRENT is not Logger.DEFAULT and Logger.CURRENT is not previous:
        Logger.CURRENT.close()
    Logger.CURRENT = previous
    Logger.DEFAULT.set_level(INFO)


def test_default_logger_prints_table_to_stdout(capsys):
    logger.logkv("fps", 1201)
    logger.logkv("explained_variance", 0.0352)
    logger.logkv("a", "text")
    logger.dumpkvs()
    out = capsys.readouterr().out
    lines = out.strip().split("\n")
    assert lines[0] == lines[-1] == "-" * len(lines[0])
    # keys sorted, floats with %-8.3g
    assert lines[1:-1] == [
        "| a                  | text     |",
        "| explained_variance | 0.0352   |",
        "| fps                | 1201     |",
    ]
    assert len(lines[0]) == len(lines[1])
    # values are forgotten after a dump
    assert logger.getkvs() == {}


def test_table_float_format_and_truncation(capsys):
    logger.logkv("x" * 30, 123456.789)
    logger.logkv("np32", np.float32(0.5))
    logger.logkv("long_value", "v" * 40)
    logger.dumpkvs()
    out = capsys.readouterr().out
    assert "| " + "x" * 20 + "..." + " |" in out
    assert "1.23e+05" in out
    assert "| np32 " in out and "0.5     " in out
    assert "v" * 20 + "..." in out and "v" * 21 not in out


def test_logkv_mean_and_levels(capsys):
    logger.logkv_mean("reward", 1.0)
    logger.logkv_mean("reward", 2.0)
    logger.logkv_mean("reward", 6.0)
    assert logger.getkvs()["reward"] == pytest.approx(3.0)
    logger.logkvs({"b": 1, "c": 2})
    assert logger.getkvs()["b"] == 1
    logger.record_tabular("d", 4)
    assert logger.getkvs()["d"] == 4
    logger.dump_tabular()
    capsys.readouterr()

    logger.log("hello", 3)
    assert capsys.readouterr().out == "hello 3\n"
    logger.debug("hidden")
    assert capsys.readouterr().out == ""
    logger.set_level(DEBUG)
    assert logger.get_level() == DEBUG
    logger.debug("shown")
    assert capsys.readouterr().out == "shown\n"
    logger.set_level(WARN)
    logger.info("hidden")
    logger.warn("warned")
    logger.error("error")
    assert capsys.readouterr().out == "warned\nerror\n"
    logger.set_level(DISABLED)
    logger.logkv("a", 1)
    logger.dumpkvs()
    assert capsys.readouterr().out == ""


def test_empty_dump_warns(capsys):
    with pytest.warns(UserWarning, match="empty key-value"):
        logger.dumpkvs()


def test_configure_without_folder_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    before = set(os.listdir(os.environ.get("TMPDIR", "/tmp")))
    logger.configure()
    assert logger.get_dir() is None
    assert Logger.CURRENT is not Logger.DEFAULT
    assert len(Logger.CURRENT.output_formats) == 1
    assert isinstance(Logger.CURRENT.output_formats[0], HumanOutputFormat)
    logger.logkv("a", 1)
    logger.dumpkvs()
    assert "| a | 1 |" in capsys.readouterr().out
    assert os.listdir(str(tmp_path)) == []
    after = set(os.listdir(os.environ.get("TMPDIR", "/tmp")))
    assert not [name for name in after - before if name.startswith("openai-")]


def test_configure_file_format_without_folder_is_an_error():
    with pytest.raises(ValueError, match="need a folder"):
        logger.configure(format_strs=["stdout", "csv"])


def test_configure_with_folder_default_formats(tmp_path, capsys):
    folder = str(tmp_path / "logs")
    logger.configure(folder)
    assert logger.get_dir() == folder
    assert "Logging to {}".format(folder) in capsys.readouterr().out
    logger.logkv("a", 1.5)
    logger.dumpkvs()
    logger.reset()
    assert Logger.CURRENT is Logger.DEFAULT
    assert sorted(os.listdir(folder)) == ["log.txt", "progress.csv"]
    with open(os.path.join(folder, "log.txt")) as file_handler:
        text = file_handler.read()
    assert "Logging to" in text and "| a | 1.5      |" in text
    assert logger.read_csv(os.path.join(folder, "progress.csv"))["a"].tolist() == [1.5]


def test_env_variables(tmp_path, monkeypatch, capsys):
    folder = str(tmp_path / "env_logs")
    monkeypatch.setenv("OPENAI_LOGDIR", folder)
    monkeypatch.setenv("OPENAI_LOG_FORMAT", "json,csv")
    logger.configure()
    assert logger.get_dir() == folder
    logger.logkv("x", 2)
    logger.dumpkvs()
    assert capsys.readouterr().out == ""  # no stdout format
    logger.reset()
    assert sorted(os.listdir(folder)) == ["progress.csv", "progress.json"]


def test_env_format_without_folder_only_stdout(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_LOG_FORMAT", "stdout,csv")
    with pytest.warns(UserWarning, match="ignored"):
        logger.configure()
    assert [type(fmt) for fmt in Logger.CURRENT.output_formats] == [HumanOutputFormat]
    assert os.listdir(str(tmp_path)) == []


def test_csv_new_keys_rewrite_header(tmp_path):
    path = str(tmp_path / "progress.csv")
    writer = CSVOutputFormat(path)
    writer.writekvs({"a": 1, "b": 2})
    writer.writekvs({"a": 3, "c": 4})
    writer.writekvs({"b": 5})
    writer.close()
    with open(path) as file_handler:
        lines = file_handler.read().splitlines()
    assert lines == ["a,b,c", "1,2,", "3,,4", ",5,"]
    frame = logger.read_csv(path)
    assert list(frame.columns) == ["a", "b", "c"]
    assert frame["c"].tolist()[1] == 4


def test_json_format(tmp_path):
    path = str(tmp_path / "progress.json")
    writer = JSONOutputFormat(path)
    writer.writekvs({"a": np.float32(1.5), "arr": np.arange(3), "s": "x", "i": np.int64(2)})
    writer.writekvs({"a": 2.0})
    writer.close()
    with open(path) as file_handler:
        rows = [json.loads(line) for line in file_handler]
    assert rows[0] == {"a": 1.5, "arr": [0, 1, 2], "s": "x", "i": 2}
    assert rows[1] == {"a": 2.0}
    frame = logger.read_json(path)
    assert frame["a"].tolist() == [1.5, 2.0]


def test_human_format_to_file_object(tmp_path):
    path = str(tmp_path / "log.txt")
    writer = HumanOutputFormat(path)
    writer.writekvs({"key": 1})
    writer.writeseq(["a", "b"])
    writer.close()
    with open(path) as file_handler:
        assert file_handler.read() == "-----------\n| key | 1 |\n-----------\na b\n"
    stream = io.StringIO()
    writer = HumanOutputFormat(stream)
    writer.writekvs({"k": 0.5})
    writer.close()
    assert stream.getvalue() == "----------------\n| k | 0.5      |\n----------------\n"
    with pytest.raises(TypeError, match="write method"):
        HumanOutputFormat(42)


def test_tensorboard_format(tmp_path):
    folder = str(tmp_path / "tb")
    writer = TensorBoardOutputFormat(folder)
    writer.writekvs({"loss": 0.5, "fps": 100, "name": "skipped"})
    writer.writekvs({"loss": 0.25})
    writer.close()
    files = glob.glob(os.path.join(folder, "events.*"))
    assert len(files) == 1
    scalars = []
    for event in tf.train.summary_iterator(files[0]):
        for value in event.summary.value:
            scalars.append((event.step, value.tag, value.simple_value))
    assert sorted(scalars) == [(1, "fps", 100.0), (1, "loss", 0.5), (2, "loss", 0.25)]
    frame = logger.read_tb(folder)
    assert list(frame.columns) == ["fps", "loss"]
    assert frame["loss"].tolist() == [0.5, 0.25]
    assert frame["fps"].tolist()[0] == 100.0 and np.isnan(frame["fps"].tolist()[1])


def test_configure_tensorboard(tmp_path):
    folder = str(tmp_path)
    logger.configure(folder, ["tensorboard"])
    logger.logkv("r", 3.0)
    logger.dumpkvs()
    logger.reset()
    assert logger.read_tb(os.path.join(folder, "tb"))["r"].tolist() == [3.0]


def test_scoped_configure(tmp_path, capsys):
    folder = str(tmp_path / "scoped")
    previous = Logger.CURRENT
    with ScopedConfigure(folder, ["csv"]):
        assert Logger.CURRENT is not previous
        logger.logkv("a", 1)
        logger.dumpkvs()
    assert Logger.CURRENT is previous
    assert logger.read_csv(os.path.join(folder, "progress.csv"))["a"].tolist() == [1]
    assert capsys.readouterr().out == ""


def test_make_output_format_errors(tmp_path):
    with pytest.raises(ValueError, match="Unknown format"):
        make_output_format("xml", str(tmp_path))
    with pytest.raises(ValueError, match="needs a folder"):
        make_output_format("json", None)
    assert isinstance(make_output_format("stdout", None), HumanOutputFormat)


def test_profile():
    @logger.profile("work")
    def work(value):
        return value * 2

    assert work(3) == 6
    assert logger.getkvs()["wait_work"] >= 0.0
    with logger.ProfileKV("block"):
        pass
    assert "wait_block" in logger.getkvs()
    assert logger.profile_kv is logger.ProfileKV
    Logger.CURRENT.name2val.clear()


def test_demo_prints_and_writes(tmp_path, capsys):
    folder = str(tmp_path / "demo")
    assert logger._demo(folder) == folder
    out = capsys.readouterr().out
    assert out.startswith("hi\nthis DEBUG message is shown at the DEBUG level\nLogging to {}\n".format(folder))
    assert "hidden" not in out
    assert "----------------\n| a | 5.5      |\n| b | -33.5    |\n----------------\n" in out
    assert "| a | a value too long for... |" in out
    assert out.endswith("Reset logger\n-------------------------------\n| a | a value too long for... |\n"
                        "-------------------------------\na warning\nan error\nfiles written to {}\n".format(folder))
    # the demo leaves the default logger as it found it
    assert Logger.CURRENT is Logger.DEFAULT and logger.get_level() == INFO
    assert sorted(os.listdir(folder)) == ["log.txt", "progress.csv", "scoped"]
    frame = logger.read_csv(os.path.join(folder, "progress.csv"))
    assert list(frame.columns) == ["a", "b"]
    assert frame["a"].tolist() == [3, 5.5, 5.5]
    assert frame["b"].tolist()[:2] == [2.5, -2.5]
    assert frame["b"].tolist()[2] == pytest.approx((-22.5 - 44.4) / 2)
    assert logger.read_json(os.path.join(folder, "scoped", "progress.json"))["b"].tolist() == [-2.5]
    with open(os.path.join(folder, "log.txt")) as file_handler:
        text = file_handler.read()
    assert text.startswith("Logging to {}\n----------------\n| a | 3        |\n| b | 2.5      |\n".format(folder))
    assert "^^^ a = 5.5 above\n" in text


def test_every_file_format_reads_back(tmp_path, capsys):
    """Dumps with changing keys, written through configure, come back from the readers as they were logged."""
    folder = str(tmp_path / "all")
    logger.configure(folder, ["stdout", "log", "json", "csv", "tensorboard"])
    dumps = [{"loss": 0.5, "steps": 10}, {"loss": 0.25, "steps": 20, "reward": -1.5}, {"reward": 3.0}]
    for values in dumps:
        for key, value in values.items():
            logger.logkv(key, value)
        logger.dumpkvs()
    logger.reset()
    assert sorted(os.listdir(folder)) == ["log.txt", "progress.csv", "progress.json", "tb"]

    csv_frame = logger.read_csv(os.path.join(folder, "progress.csv"))
    json_frame = logger.read_json(os.path.join(folder, "progress.json"))
    event_files = glob.glob(os.path.join(folder, "tb", "events.*"))
    assert len(event_files) == 1
    tb_frame = logger.read_tb(event_files[0])  # a single file works as well as its folder
    assert list(csv_frame.columns) == ["loss", "steps", "reward"]  # new columns appended, in sorted order
    assert sorted(json_frame.columns) == sorted(tb_frame.columns) == ["loss", "reward", "steps"]
    for frame in (csv_frame, json_frame, tb_frame):
        assert len(frame) == 3
        for row, values in enumerate(dumps):
            for key in ("loss", "steps", "reward"):
                if key in values:
                    assert frame[key][row] == values[key]
                else:
                    assert np.isnan(frame[key][row])
    with open(os.path.join(folder, "log.txt")) as file_handler:
        assert file_handler.read() == capsys.readouterr().out.replace("Reset logger\n", "")


def test_readers_errors(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="tensorboard file"):
        logger.read_tb(str(tmp_path / "progress.csv"))
    empty = logger.read_tb(str(tmp_path))  # a folder with no event file: an empty table
    assert empty.shape == (0, 0)
    path = str(tmp_path / "progress.json")
    with open(path, "w") as file_handler:
        file_handler.write('{"a": 1}\n\n{"a": 2, "b": "x"}\n')
    frame = logger.read_json(path)
    assert frame["a"].tolist() == [1, 2] and frame["b"].tolist()[1] == "x"
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)
    with pytest.raises(ImportError, match="needs pandas"):
        logger.read_json(path)
