"""The verdict path: trigger, evidence, rules, checks, verdict, render and the pipeline that runs one verification."""
