"""The bytes of a compressed log (a chunk or an archive, games.log.archive): zlib with a
preset dictionary the header names. No Django here: the benchmarks read chunks with it
straight from the database (benchmarks/_server.py `logged_moves`)."""

import zlib


class ArchiveCorrupt(Exception):
    """An archive whose bytes do not hash to the sha256 stored with them."""


# A preset dictionary for a chunk's zlib: a hand's events are 3 to 4 KB of JSON, too little
# for zlib to learn the strings they repeat, so it is given them beforehand (typical
# fragments of each event type, the most frequent last): a chunk takes about 30 % fewer
# bytes. Never change it: a chunk names the dictionary it was compressed with (zlib's
# DICTID, the dictionary's Adler-32) and is read with that one; add another to
# _DICTIONARIES instead.
_DECK = '["9C","TC","JC","QC","KC","AC","9D","TD","JD","QD","KD","AD","9H","TH","JH","QH",'
_DECK += '"KH","AH","9S","TS","JS","QS","KS","AS"]'
CHUNK_DICTIONARY = "".join(
    [
        '"match_created",null,{"options":{"target_score":10},"first_dealer":0,'
        '"turn_seconds":null,"hints_allowed":true},"',
        '"seat_taken",0,{"kind":"human","seat":0,"level":null,"user_id":1,"username":"',
        '"seat_taken",1,{"kind":"computer","seat":1,"level":"medium","user_id":null,'
        '"username":null},"',
        '"match_started",null,{},"',
        f'"hand_revealed",null,{{"deck":{_DECK},"hand":1,"salt":"","commitment":""}},"',
        f'"hand_dealt",null,{{"deck":{_DECK},"hand":1,"salt":"","dealer":0,"upcard":"9C",'
        '"commitment":"","dealer_names_suit":false},"',
        '"hand_thrown_in",null,{"hand":1},"',
        '"hand_scored",null,{"hand":1,"team":0,"makers":0,"points":1,"result":"made",'
        '"scores":[1,0],"makers_tricks":3},"',
        '"discard",0,{"action":{"card":"9C","type":"discard"}},"',
        '"bid",1,{"action":{"suit":"H","type":"call","alone":false}},"',
        '"bid",2,{"action":{"type":"order_up","alone":false}},"',
        '"bid",3,{"action":{"type":"pass"}},"',
        '"trick_won",null,{"seat":0,"trick":1},"',
        '"card_played",0,{"action":{"card":"AH","type":"play"}},"2026-12-06T05:06:21.000000+00:00"],[',
    ]
).encode()
_DICTIONARIES = {zlib.adler32(CHUNK_DICTIONARY): CHUNK_DICTIONARY}


def compress_chunk(raw: bytes) -> bytes:
    compressor = zlib.compressobj(9, zdict=CHUNK_DICTIONARY)
    return compressor.compress(raw) + compressor.flush()


def decompress(data: bytes) -> bytes:
    """zlib's bytes, with the preset dictionary their header names, if any (FDICT)."""
    if len(data) < 6 or not data[1] & 0x20:
        return zlib.decompress(data)
    dictionary = _DICTIONARIES.get(int.from_bytes(data[2:6], "big"))
    if dictionary is None:
        raise ArchiveCorrupt("compressed with a dictionary this version does not know")
    decompressor = zlib.decompressobj(zdict=dictionary)
    return decompressor.decompress(data) + decompressor.flush()
