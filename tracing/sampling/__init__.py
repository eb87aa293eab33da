"""Tail sampling, one room: the decision by conversation (`rate.sampled`: a hash of the conversation id
against the rate, so a sampled conversation keeps every turn), the decider that also keeps every flagged
trace and the buffered earlier turns of a conversation flagged late (`decider.Decider`), the span
processor that holds a trace until its root ends (`sampler.TailSampler`), and the exporter's bounded
queue that never blocks the agent (`keeper.Keeper`). Import the modules themselves: the ingest path
imports `rate`, and `keeper` imports the ingest path.
"""
