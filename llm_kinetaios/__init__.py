"""llm-kinetaios: long-term memory for the llm CLI.

This module holds only the plugin hooks. Every llm command loads plugins, so
nothing here imports numpy, an embedding model or the database: that work
happens when a memory model actually runs.
"""

import llm

__version__ = "0.1.0"


@llm.hookimpl
def register_models(register):
    from .config import load_settings
    from .wrapper import AsyncMemoryModel, MemoryModel, memory_model_specs

    for model_id, inner_id in memory_model_specs(load_settings()):
        register(MemoryModel(model_id, inner_id), AsyncMemoryModel(model_id, inner_id))


@llm.hookimpl
def register_embedding_models(register):
    from .embeddings import MultilingualE5Small

    register(MultilingualE5Small(), aliases=("e5-small",))


@llm.hookimpl
def register_commands(cli):
    from .cli import memories

    cli.add_command(memories)


@llm.hookimpl
def register_tools(register):
    from .tools import recall_memory

    register(recall_memory)
