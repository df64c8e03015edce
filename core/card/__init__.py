"""The board card: does this board reward the better player, and what kind of game does it give?"""
