"""Datasette integration: browse and search memories in llm's logs.db.

``memories_fts`` is a standalone FTS5 table keyed by ``memories.seq`` (see
migrations.m001_memories), so Datasette cannot find it by itself and shows
no search box. Two table settings fix that: ``fts_table`` and ``fts_pk``.

They reach Datasette in one of two ways:

* installed in the same environment as Datasette, this package is a
  Datasette plugin (the ``datasette`` entry point) whose ``get_metadata``
  hook adds them for every database served: ``datasette "$(llm logs path)"``
  just works;
* otherwise ``llm memories datasette-metadata`` prints them as a metadata
  file for ``datasette -m``.

Nothing here is imported by llm: only Datasette loads this module.
"""

from __future__ import annotations

MEMORIES_TABLE = {
    "description": "Durable facts about you, remembered by llm-kinetaios",
    "fts_table": "memories_fts",
    "fts_pk": "seq",
    "label_column": "content",
    "sort_desc": "seq",
}


def metadata_for(database_names) -> dict:
    "Datasette metadata giving each named database's memories table its search."
    return {
        "databases": {name: {"tables": {"memories": dict(MEMORIES_TABLE)}} for name in database_names}
    }


try:
    from datasette import hookimpl
except ImportError:  # llm memories datasette-metadata needs no Datasette
    pass
else:

    @hookimpl
    def get_metadata(datasette, key, database, table):
        # A database without a memories table ignores settings for one.
        return metadata_for(datasette.databases)
