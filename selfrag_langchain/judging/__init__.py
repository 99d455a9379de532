"""Judges of reflection beside the backends' own critic: calibrated signals (the embedded default's judge),
a cross-encoder trained on critic labels and synthetic contrasts, and a critic on any chat model that
returns top log-probabilities."""

from selfrag_langchain.judging.calibrated import CalibratedReflector
from selfrag_langchain.judging.calibration import GroupCalibration, JudgeCalibration
from selfrag_langchain.judging.chat_critic import ChatCriticReflector
from selfrag_langchain.judging.learned import LearnedReflector

__all__ = ["CalibratedReflector", "ChatCriticReflector", "GroupCalibration", "JudgeCalibration", "LearnedReflector"]
