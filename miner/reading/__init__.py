"""Reading an answer's words: what it states, claims, promises and whom it names.

The shared core (`text`: folding and sentences; `language`: French or English) and, beside it, what is read
from the words: facts in French and in English side by side (`facts_fr`, `facts_en`, neither importing the
other; `facts` reads either; the subjects they are about in `subjects`), actions claimed (`claims`), whether a fact was seen (`grounding`), policies stated (`policy`),
identities and their matching (`identities`, `emails`, `matching`). Pure functions over text: nothing here
knows a flag, a rule or the store; the rules room asks these questions and decides what they mean.
"""
