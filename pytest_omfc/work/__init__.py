"""The one owner of worker processes: the local pools and their forkserver (:mod:`.pool`), the allocator
setting of every process that scores (:mod:`.alloc`), and the executors that run a scorer's work on this
machine or a dask cluster (:mod:`.executors`).  The rules (MASK-04's inflating, the PROV rules) and the
scorers ask here for processes; nothing else starts one."""
