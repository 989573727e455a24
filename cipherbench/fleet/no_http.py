"""A Dask preload (`--preload cipherbench.fleet.no_http`): the node serves no HTTP.

Dask's scheduler and worker serve HTTP (health, Prometheus metrics, the cluster's state
and logs, the dashboard where bokeh is installed) whether a dashboard is asked for or
not: Scheduler.__init__ and Worker.start_unsafe call Node.start_http_server either way
(distributed 2026.8.0; `--no-dashboard` and `dashboard_address=None` only drop the
dashboard's pages, and the scheduler then takes port 8787). That server has neither TLS
nor authentication, and a fleet asks for none of it. So:

- the fleet starts every node with the HTTP routes emptied in Dask's configuration
  (ROUTES_OFF: nothing is served in the moment the server exists), on loopback;
- and this preload, which Dask runs once the node has started (Preloads.start, before a
  worker registers with its scheduler), closes the server's sockets and forgets it as a
  service, so the node listens on its comm port and nowhere else.
"""
from __future__ import annotations

#: Dask's configuration that leaves the HTTP servers nothing to serve.
ROUTES_OFF: dict[str, list[str]] = {"distributed.scheduler.http.routes": [], "distributed.worker.http.routes": []}


def dask_setup(node) -> None:
    """Dask's preload hook: close `node`'s HTTP server, if it started one."""
    server = getattr(node, "http_server", None)
    if server is not None:
        server.stop()  # tornado's TCPServer.stop: closes the listening sockets at once
    node.services.pop("dashboard", None)  # so no one is told its port
