"""Tasks (the tasks extension) from Python: a tool with task_support runs as a task for a
client that calls it with task=True: the call waits for the result while the statuses
reach on_progress, answers what the task asks with the client's callbacks, and a
cancelled wait cancels the task (the handler sees CancelledError). Clients that do not
ask for tasks call the same tool as always."""

import asyncio
from typing import Any

import pytest
from conftest import run

from oxmcp import Client, Context, InvalidInput, McpError, Server, Task


def task_server(events: list[str]) -> Server:
    server = Server("tasks")

    @server.tool(task_support="optional")
    async def build(seconds: float, ctx: Context) -> str:
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            events.append("build cancelled")
            raise
        return f"built in {seconds} s"

    @server.tool(task_support="optional")
    async def confirm(ctx: Context) -> str:
        answer = await ctx.elicit("Go ahead?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
        return f"answer: {answer.action} ok={answer.content.ok}"

    @server.tool(task_support="required")
    def only_as_task() -> str:
        return "ran"

    return server


@pytest.mark.parametrize("era", ["session", "stateless"])
def test_a_task_runs_while_the_client_waits_and_follows_it(era):
    async def main() -> None:
        events: list[str] = []
        server = task_server(events)
        url = await server.start_http("127.0.0.1", 0)
        statuses: list[str] = []

        async def elicit(request):  # the task's question, answered through tasks/update
            return {"action": "accept", "content": {"ok": True}}
        try:
            async with Client.http(url, era=era, elicitation=elicit) as client:
                r = await client.call_tool("build", {"seconds": 1.2}, task=True,
                                           on_progress=lambda p, t, m: statuses.append(m or ""))
                assert r.content[0].text == "built in 1.2 s"
                assert statuses[0] == "working" and statuses[-1] == "completed", statuses
                r = await client.call_tool("confirm", task=True)
                assert r.content[0].text == "answer: accept ok=True"
                # Without task=True the same tool answers directly; a required one refuses:
                # -32601 at 2025-11-25 (that version's task form), -32021 (the extension is
                # missing) in the stateless era.
                assert (await client.call_tool("build", {"seconds": 0})).content[0].text == "built in 0.0 s"
                with pytest.raises(McpError) as e:
                    await client.call_tool("only_as_task")
                assert e.value.code == (-32601 if era == "session" else -32021)
                assert (await client.call_tool("only_as_task", task=True)).content[0].text == "ran"

                # A cancelled wait cancels the task; its handler sees it.
                with pytest.raises(asyncio.TimeoutError):
                    await asyncio.wait_for(client.call_tool("build", {"seconds": 60}, task=True), 0.5)
                for _ in range(100):
                    if "build cancelled" in events:
                        break
                    await asyncio.sleep(0.05)
                assert events == ["build cancelled"]
        finally:
            await server.stop_http()
    run(main())


@pytest.mark.parametrize("era", ["session", "stateless"])
def test_a_task_past_its_ttl_is_gone(era):
    """A task is kept task_ttl seconds: then tasks/get answers that there is no such task."""
    server = Server("short-lived", task_ttl=0.3, task_poll_interval=0.05)

    @server.tool(task_support="optional")
    def quick() -> str:
        return "done"

    meta: dict[str, Any] = {
        "_meta": {"io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}}

    async def main() -> None:
        url = await server.start_http("127.0.0.1", 0)
        try:
            async with Client.http(url, era=era) as client:
                created = await client.request("tools/call", {"name": "quick", "arguments": {}, **meta})
                assert created.resultType == "task" and created.pollIntervalMs == 50
                task_id = created.taskId
                for _ in range(100):
                    task = await client.request("tasks/get", {"taskId": task_id, **meta})
                    if task.status == "completed":
                        break
                    await asyncio.sleep(0.02)
                assert task.result.content[0].text == "done"
                await asyncio.sleep(0.4)
                with pytest.raises(McpError) as e:
                    await client.request("tasks/get", {"taskId": task_id, **meta})
                assert e.value.code == -32602 and "unknown task" in e.value.message
        finally:
            await server.stop_http()
    run(main())


@pytest.mark.parametrize("era", ["session", "stateless"])
def test_an_escalating_tool_asks_inline_then_goes_on_as_a_task(era):
    async def main() -> None:
        server = Server("escalating")
        steps: list[str] = []

        @server.tool(task_support="optional", escalating=True)
        async def report(ctx: Context, seconds: float = 0.2) -> str:
            answer = await ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}})
            steps.append(f"escalated={await ctx.escalate_to_task()}")
            await asyncio.sleep(seconds)
            return f"report for {answer.content.name}"

        with pytest.raises(InvalidInput, match="escalating tool needs execution.taskSupport"):
            server.tool(escalating=True)(lambda: "x")
        url = await server.start_http("127.0.0.1", 0)
        asked: list[str] = []

        async def elicit(request: Any) -> dict[str, Any]:
            asked.append(request.message)
            return {"action": "accept", "content": {"name": "Ada"}}
        try:
            async with Client.http(url, era=era, elicitation=elicit) as client:
                statuses: list[str] = []
                r = await client.call_tool("report", task=True, on_progress=lambda p, t, m: statuses.append(m or ""))
                assert r.content[0].text == "report for Ada"
                assert asked == ["Name?"] and steps == ["escalated=True"], (asked, steps)
                assert statuses and statuses[-1] == "completed", statuses
                # Without task=True the whole call runs inline.
                r = await client.call_tool("report", {"seconds": 0})
                assert r.content[0].text == "report for Ada"
                assert steps[-1] == "escalated=False", steps
        finally:
            await server.stop_http()
    run(main())


@pytest.mark.parametrize("era", ["session", "stateless"])
def test_the_task_steps_start_get_update_and_cancel(era):
    async def main() -> None:
        events: list[str] = []
        server = task_server(events)
        url = await server.start_http("127.0.0.1", 0)

        async def elicit(request: Any) -> dict[str, Any]:  # declares the capability; the steps answer themselves
            raise AssertionError("update_task answers, not the callback")
        try:
            async with Client.http(url, era=era, elicitation=elicit) as client:
                started = await client.start_tool_task("build", {"seconds": 0.3})
                assert isinstance(started, Task) and started.status == "working", started
                task = started
                for _ in range(200):
                    task = await client.get_task(started.task_id)
                    if task.status != "working":
                        break
                    await asyncio.sleep(0.05)
                assert task.status == "completed" and task.result is not None, task
                assert task.result.content[0].text == "built in 0.3 s"

                # A question becomes the task's input request, answered by key.
                asking = await client.start_tool_task("confirm")
                assert isinstance(asking, Task)
                for _ in range(200):
                    task = await client.get_task(asking.task_id)
                    if task.status == "input_required":
                        break
                    await asyncio.sleep(0.05)
                assert task.input_requests, task
                key = next(iter(task.input_requests))
                await client.update_task(asking.task_id, {key: {"action": "accept", "content": {"ok": True}}})
                for _ in range(200):
                    task = await client.get_task(asking.task_id)
                    if task.status == "completed":
                        break
                    await asyncio.sleep(0.05)
                assert task.result is not None and task.result.content[0].text == "answer: accept ok=True", task

                long = await client.start_tool_task("build", {"seconds": 60})
                assert isinstance(long, Task)
                await client.cancel_task(long.task_id)
                assert (await client.get_task(long.task_id)).status == "cancelled"
                for _ in range(100):
                    if "build cancelled" in events:
                        break
                    await asyncio.sleep(0.05)
                assert "build cancelled" in events
                with pytest.raises(McpError) as e:
                    await client.get_task("no-such-task")
                assert e.value.code == -32602
        finally:
            await server.stop_http()
    run(main())
