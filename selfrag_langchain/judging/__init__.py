"""Judges of reflection beyond asking a critic: calibrated signals (the embedded default's judge)."""

from selfrag_langchain.judging.calibrated import CalibratedReflector
from selfrag_langchain.judging.calibration import GroupCalibration, JudgeCalibration

__all__ = ["CalibratedReflector", "GroupCalibration", "JudgeCalibration"]
