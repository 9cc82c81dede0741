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
    from .wrapper import AsyncMemoryModel, MemoryModel

    settings = load_settings()
    wrappers = [
        ("memory-claude", settings.claude_model, f"{settings.claude_model} with memory"),
        ("memory", None, "llm's default model with memory"),
    ]
    for inner_id in settings.wrapped_models:
        wrappers.append((f"memory-{inner_id}", inner_id, f"{inner_id} with memory"))
    for model_id, inner_id, description in wrappers:
        register(
            MemoryModel(model_id, inner_id, description),
            AsyncMemoryModel(model_id, inner_id, description),
        )


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
