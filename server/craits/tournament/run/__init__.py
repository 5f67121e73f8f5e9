"""Running a tournament: claiming jobs, playing them somewhere, recording them.

    lease          who may run a tournament now (one run process per tournament)
    inprocess      an SDK ``Bot`` as a seat in the referee's own process (no gRPC)
    botpool        every bot of a run, by process slot (launched, sandboxed, or in process)
    local_tables   claimed jobs played at tables of this process, with a bot pool
    worker_process a worker process's side: its own referee, bots and tables
    worker_pool    the run process's side of its worker processes (``--workers N``)
    ray_actor      a Ray actor's side: tables on a cluster node (``--ray ADDRESS``)
    ray_pool       the run process's side of its Ray actors
    runner         claims jobs, has them played here, in workers or on Ray, records them:
                   the store's one writer
"""
