"""Safe fetching of untrusted URLs: URL safety, pinned connections, bounded fetches, pages, crawling."""
