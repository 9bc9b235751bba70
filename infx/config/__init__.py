"""Config loading and validation: master configs, runners and policy files."""
