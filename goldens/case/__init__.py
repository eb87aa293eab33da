"""The case format, the bottom room of `goldens`: a case as a typed object (`Case`, `Example`), the tool
objects its checks name (`ToolSpec`), and the problems lint reports (`Problem`). It imports no other
room; every other room reads cases through it.
"""

from filon.goldens.case.problems import Problem
from filon.goldens.case.schema import Case, Example, canal_of
from filon.goldens.case.tool_spec import ToolSpec

__all__ = ["Case", "Example", "Problem", "ToolSpec", "canal_of"]
