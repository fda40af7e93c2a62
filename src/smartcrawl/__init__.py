"""smartcrawl: smart bilingual focused crawling of parallel documents."""

__version__ = "0.1.0"
