"""What keeps calls dependable: retries, cool-downs, fusion, key rotation, cache, rate limits."""
