# expect: CWE-20 (yaml.load without a safe loader builds arbitrary objects)
import yaml


def read_config(path):
    with open(path) as handle:
        return yaml.load(handle, Loader=yaml.Loader)
