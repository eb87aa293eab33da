"""What a run decides and says: the gate (`decide`, every rule of the decision in one place), the paired
comparison of two runs, and the report with its writers (JSON, JUnit, the console, the Markdown summary).
"""

from filon.goldens.verdict.compare import Comparison, compare
from filon.goldens.verdict.gate import Gate, decide

__all__ = ["Comparison", "Gate", "compare", "decide"]
