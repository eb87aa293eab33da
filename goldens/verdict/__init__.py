"""What a run decides and says: the gate (`decide`, every rule of the decision in one place), the paired
comparison of two runs, and the report with its writers (JSON, JUnit, the console, the Markdown summary).
"""

from goldens.verdict.compare import Comparison, compare
from goldens.verdict.gate import Gate, decide

__all__ = ["Comparison", "Gate", "compare", "decide"]
