"""Episode monitoring: the Monitor wrapper and the reading of its log files."""
from stable_baselines.bench.monitor import Monitor, load_results, get_monitor_files, LoadMonitorResultsError

__all__ = ["Monitor", "load_results", "get_monitor_files", "LoadMonitorResultsError"]
