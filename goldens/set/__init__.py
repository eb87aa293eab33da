"""The golden set as a whole: reading and linting it (`load_set`), proving each case's checks on its
examples (`calibration`), mutants of the good answers, each rule's standing on the set, the gate's
agreement with the reviewers (`trust`), the judge's calibration, and importing the seeds' single file.
"""

from filon.goldens.set.caseset import CaseSet, goldens_dir, load_set, missing_set

__all__ = ["CaseSet", "goldens_dir", "load_set", "missing_set"]
