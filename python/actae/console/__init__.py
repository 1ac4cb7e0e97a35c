"""The Actae console: a read-only web view of runs, timelines, tool ledgers and fork trees.

``actae console`` serves it (extra ``actae[console]``: Starlette, Jinja2, uvicorn). This
package's ``models`` are the rows of the console reads (sql/60_console.sql) and need only
the core dependencies; ``app`` needs the extra.
"""
