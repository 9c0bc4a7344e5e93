# expect: CWE-89 (an aiohttp handler formats the query string into SQL)
from aiohttp import web


async def search(request):
    name = request.query.get("name", "")
    async with request.app["db"].acquire() as conn:
        async with conn.cursor() as cur:
            await cur.execute("SELECT id, name FROM students WHERE name = '%s'" % name)
            return web.json_response(await cur.fetchall())
