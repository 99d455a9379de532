"""Invoke and stream for Runnables that produce items as they go and their result last (segments, then the
answer): the LangChain plumbing written once for ``SelfRAGLongForm`` and ``SelfRAGConversation``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import patch_config


class ItemStreaming:
    """Mixin for a ``Runnable``: subclasses implement :meth:`_items` and :meth:`_aitems` (generators that
    yield items and the result last); ``invoke``/``ainvoke`` return the result, ``stream``/``astream`` (and
    ``transform`` in LCEL chains) yield everything. The work runs in the reader's thread, item by item, so a
    reader that stops stops it."""

    def _items(self, value: Any, config: RunnableConfig, run_manager: CallbackManagerForChainRun) -> Iterator[Any]:
        raise NotImplementedError

    def _aitems(self, value: Any, config: RunnableConfig, run_manager: AsyncCallbackManagerForChainRun
                ) -> AsyncIterator[Any]:
        raise NotImplementedError

    # ------------------------------------------------------------------ sync

    def _result(self, input: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig) -> Any:
        item: Any = None
        for item in self._items(input, patch_config(config, callbacks=run_manager.get_child()), run_manager):  # noqa: B007
            pass
        return item

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self._call_with_config(self._result, input, config, **kwargs)  # type: ignore[attr-defined]

    def stream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[Any]:
        """Each item as soon as it is ready, then the result."""
        yield from self.transform(iter([input]), config, **kwargs)

    def transform(self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[Any]:
        yield from self._transform_stream_with_config(  # type: ignore[attr-defined]
            input, self._transform_items, config, **kwargs)

    def _transform_items(self, inputs: Iterator[Any], run_manager: CallbackManagerForChainRun,
                         config: RunnableConfig) -> Iterator[Any]:
        value: Any = None
        for value in inputs:  # noqa: B007 - a Runnable upstream hands over whole values: keep the last
            pass
        yield from self._items(value, config, run_manager)

    # ------------------------------------------------------------------ async

    async def _aresult(self, input: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
                       ) -> Any:
        item: Any = None
        async for item in self._aitems(input, patch_config(config, callbacks=run_manager.get_child()),  # noqa: B007
                                       run_manager):
            pass
        return item

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await self._acall_with_config(self._aresult, input, config, **kwargs)  # type: ignore[attr-defined]

    async def astream(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> AsyncIterator[Any]:
        """The async twin of :meth:`stream`."""

        async def one() -> AsyncIterator[Any]:
            yield input

        async for item in self.atransform(one(), config, **kwargs):
            yield item

    async def atransform(self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
                         ) -> AsyncIterator[Any]:
        async for item in self._atransform_stream_with_config(  # type: ignore[attr-defined]
                input, self._atransform_items, config, **kwargs):
            yield item

    async def _atransform_items(self, inputs: AsyncIterator[Any], run_manager: AsyncCallbackManagerForChainRun,
                                config: RunnableConfig) -> AsyncIterator[Any]:
        value: Any = None
        async for value in inputs:  # noqa: B007
            pass
        async for item in self._aitems(value, config, run_manager):
            yield item
