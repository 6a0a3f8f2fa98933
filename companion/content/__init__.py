"""Game content as data: experts, board constants, the animal catalogue, the user data dir.

- ``companion.content.experts``: ``EXPERTS``, ``expert_by_name`` (55 experts, effects as data)
- ``companion.content.board``: ``Board``, ``load_board``, ``default_board``, ``BoardConfigError``
- ``companion.content.catalogue``: ``AnimalCard``, ``SepultusCard``, ``Catalogue``
- ``companion.content.paths``: ``user_data_dir`` (``$ENCYCLOPEDIA_DATA_DIR`` overrides)
- ``companion.content.vocab``: continents, colours, categories, ``ContentError``

Format and decisions: docs/content.md.
"""

from companion.content.vocab import (
    CATEGORIES,
    CATEGORIES_BY_TYPE,
    COLOUR_OF_CONTINENT,
    COLOURS,
    CONTINENT_OF_COLOUR,
    CONTINENTS,
    TYPE_OF_CATEGORY,
    ContentError,
)
from companion.content.paths import user_data_dir

__all__ = [
    "CATEGORIES",
    "CATEGORIES_BY_TYPE",
    "COLOUR_OF_CONTINENT",
    "COLOURS",
    "CONTINENT_OF_COLOUR",
    "CONTINENTS",
    "TYPE_OF_CATEGORY",
    "ContentError",
    "user_data_dir",
]
