"""The conformance harness: the plan (``plan``), poisoned tensors (``tensors``), judging against the
oracle (``compare``, ``tolerance``), the runners (``runner``, ``worker``, ``schedule``), reports
(``report``, ``junit``, ``matrix``, ``claims``), the pytest plugin and the diagnoser."""
