-- Objects read from a file of chosen lines (staged with file_seq -1 and their place in that file)
-- get the document and the place of their line in the bulk file (parsed_line: i -> ord).
UPDATE card_object SET file_seq = $cards_seq, ord = p.ord
FROM parsed_line AS p WHERE card_object.file_seq = -1 AND card_object.ord = p.i;

UPDATE ruling_object SET file_seq = $rulings_seq, ord = p.ord
FROM parsed_line AS p WHERE ruling_object.file_seq = -1 AND ruling_object.ord = p.i;
