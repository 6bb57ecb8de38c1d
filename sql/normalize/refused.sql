-- Per document: records read, records refused, and the first refusals (place and reason).
SELECT file_seq, count(*) AS objects,
       list({'ord': ord, 'reason': skip_reason} ORDER BY ord) FILTER (WHERE skip_reason IS NOT NULL) AS refused
FROM (SELECT file_seq, ord, skip_reason FROM n_object
      UNION ALL SELECT file_seq, ord, skip_reason FROM ruling_object)
GROUP BY file_seq
ORDER BY file_seq;
