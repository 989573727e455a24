"""Run one measurement plan on many machines through Dask distributed.

The client (`cipherbench fleet run`) sends the plan (pipeline.RunPlan, as JSON) as
one task per target machine to a Dask scheduler; every machine runs one
single-threaded Dask worker that advertises the resource ``host-<hostname>``
(cluster.host_resource), so a task lands on exactly the machine it names and no two
measurements overlap there. The worker runs the plan through pipeline.run_plan with
that machine's own engine and runners and writes the run, with its machine context,
to the store whose URL the task carries. The fleet run and each machine's state are
recorded in the same store (state.py), so running the same command again
completes only the machines that are missing.

Modules: state (fleet runs in the store), task (what a worker does), cluster
(scheduler, workers, LocalCluster), dispatch (submit and watch), cli (the click group).
"""
